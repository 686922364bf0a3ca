"""Ground truth for the detector: where TorchDynamo breaks the graph, and which lines ran.

`dynamo_breaks` runs `torch._dynamo.explain` on a callable from a clean cache and maps every break
to one (file, line): the innermost frame of its user stack that lies inside the analysed tree. A
logger call, for example, breaks inside `logging` or torch internals; the line the detector can
point at is the call in the analysed code, the innermost analysed frame.

Dynamo also logs every graph break it meets (the `graph_breaks` logging artifact), including
the ones `explain` leaves out of `break_reasons`: a break inside a loop, after which Dynamo skips
the whole frame and runs it eagerly (graph_count 0), and a break at the start of a resumed frame
that holds no tensor operation yet (an empty graph is not counted). Both are Dynamo's own reports
of code it could not trace, so the ground truth is the union of the two, each mapped the same way.

Breaks are read exactly as the census reads them (graphmend_bot/census/dynamo.py): the reason is
the underlying break's title, past Dynamo's "Failed to handle graph break gracefully ..." and
"Encountered graph break when attempting to trace CALL" wrapper lines, with its graph-break id and
its "Explanation:" line.

A break after an earlier one of the same frame happens in a resume function, whose line table
Dynamo writes itself; torch 2.13 shifts its lines after an instruction longer than 8 code units
that starts a line (graphmend_bot/census/dynamo.py, true_resume_lines), so graph_break_log writes that table
right while measuring: each break is on the source line of the instruction it happened at.

With `traced`, `dynamo_breaks` also records the lines of the tree Dynamo traced symbolically (its
`trace_source` log), so a finding on a line that ran can be told apart: traced without a break (the
rule is wrong there, or right only in another mode) or only run eagerly (Dynamo never compiled that
code: its frame was skipped, or ran eagerly after a break it could not resume from).

`executed_lines` runs the callable once eagerly under a line tracer restricted to the analysed
tree, so a reported line that never ran on the benchmark input can be told apart from a false
positive: it can be neither confirmed nor refuted, and is counted as "not exercised".
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from collections.abc import Callable
from types import CodeType, FrameType
from typing import Any

import torch

from graphmend_bot.census.dynamo import (
    Break,
    Explained,
    Location,
    Tree,
    graph_break_log,
    mapped_breaks,
    normalise,
)

__all__ = ["Break", "Explained", "Location", "Tree", "dynamo_breaks", "executed_lines", "normalise", "relative"]


# Dynamo's trace_source record of a new source line: "TRACE starts_line /path/file.py:12 in fn (...)"
_TRACED_LINE = re.compile(r"TRACE starts_line (.+):(\d+) in ")


def dynamo_breaks(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    tree: Tree,
    no_grad: bool = True,
    traced: dict[str, set[int]] | None = None,
) -> Explained:
    """Run `torch._dynamo.explain(fn)` from a clean cache and map its breaks into `tree` (under
    `torch.no_grad()`, as the census does, unless `no_grad` is False: a training step's grad mode).
    `traced`, when given, gets the lines of `tree` Dynamo traced, by normalised path.

    The break_reasons list is the ground truth, not graph_break_count: on torch 2.13 some
    reasons (e.g. `with open(...)`) come with graph_count=1 and graph_break_count=0.
    """
    torch._dynamo.reset()
    with (
        torch.set_grad_enabled(not no_grad),
        warnings.catch_warnings(),
        graph_break_log(trace_source=traced is not None) as log,
    ):
        warnings.simplefilter("ignore")
        result = torch._dynamo.explain(fn)(*args, **kwargs)
    torch._dynamo.reset()
    messages = log.messages
    if traced is not None:
        messages = [message for message in log.messages if not message.startswith("TRACE starts_line")]
        for match in filter(None, map(_TRACED_LINE.match, log.messages)):
            path = normalise(match.group(1))
            if path in tree:
                traced.setdefault(path, set()).add(int(match.group(2)))
    return mapped_breaks(result.graph_count, result.graph_break_count, result.break_reasons, messages, tree)


def executed_lines(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    tree: Tree,
    no_grad: bool = True,
) -> dict[str, set[int]]:
    """Lines of files in `tree` that run during one eager call of `fn` (a driver may need grad)."""
    ran: dict[str, set[int]] = {}
    wanted: dict[CodeType, bool] = {}

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            ran.setdefault(normalise(frame.f_code.co_filename), set()).add(frame.f_lineno)
        return local

    def global_(frame: FrameType, event: str, arg: Any) -> Any:
        code = frame.f_code
        inside = wanted.get(code)
        if inside is None:
            inside = wanted[code] = code.co_filename in tree
        if not inside:
            return None
        ran.setdefault(normalise(code.co_filename), set()).add(frame.f_lineno)
        return local

    previous = sys.gettrace()
    with torch.set_grad_enabled(not no_grad), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sys.settrace(global_)
        try:
            fn(*args, **kwargs)
        finally:
            sys.settrace(previous)
    return ran


def relative(location: Location, base: str) -> str:
    path, line = location
    return f"{os.path.relpath(path, base)}:{line}"
