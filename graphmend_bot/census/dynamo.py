"""Where TorchDynamo breaks the graph, in its own words: `explain` plus the `graph_breaks` log.

`torch._dynamo.explain` lists break reasons, but not all of them: a break inside a loop makes
Dynamo skip the whole frame (graph_count 0), and a break before any tensor operation of a resumed
frame makes no graph to count. The `graph_breaks` logging artifact reports every break Dynamo
meets, with its reason, the graph-break id (the `gbNNNN` page it links) and the user traceback.
The truth is the union of the two, each break mapped to the innermost frame inside the project.

Imports torch; only the census and the benchmarks use this module.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import re
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch

# Kept in this file: verify's sandboxed child loads census/dynamo.py by path, where an import of
# graphmend_bot would resolve to the checkout's own package.
#
# Source lines for the code Dynamo generates after a graph break (its resume functions).
#
# Dynamo writes the line table of a resume function itself (`linetable_311_writer`, Python 3.11+).
# An instruction longer than 8 code units (3.11's LOAD_METHOD: 1 + 10 cache units) takes more than
# one table entry, and the writer repeats the instruction's line delta in every entry, so each such
# instruction on another line than the one before it (a method call whose receiver spans lines)
# shifts every later line of the function.
# Measured on torch 2.13 / Python 3.11: after `x.sum().item()` broke, a later `.item()` two lines
# past `z = (\n x\n + 1\n).view(3)` was reported two lines further down, where nothing breaks
# (torch-kmeans `_init_plus`: the multinomial's break reported on the statement after it). The
# break happens at the instruction Dynamo names; only the line its table maps that instruction to
# is wrong. While measuring, each entry after an instruction's first is written with delta 0, the
# table CPython itself would write; nothing else of the resume function changes.
Update = Callable[[Any, int], None]

_CHUNK = 8  # code units one line-table entry covers at most


@contextlib.contextmanager
def true_resume_lines() -> Iterator[None]:
    """Dynamo's resume functions map each instruction to its own source line while inside."""
    from torch._dynamo import bytecode_transformation as transformation

    writer = getattr(transformation, "linetable_311_writer", None)
    if writer is None:  # a torch without the 3.11 writer
        yield
        return

    def once_per_instruction(first_lineno: int) -> tuple[list[int], Update]:
        table, update = writer(first_lineno)

        def update_once(positions: Any, size: int) -> None:
            # Each call computes the delta from the line last written, so the chunks after an
            # instruction's first move the line by 0.
            while size > _CHUNK:
                update(positions, _CHUNK)
                size -= _CHUNK
            update(positions, size)

        return table, update_once

    transformation.linetable_311_writer = once_per_instruction
    try:
        yield
    finally:
        transformation.linetable_311_writer = writer


Location = tuple[str, int]  # (absolute normalised path, 1-based line)
RECONSTRUCTION_FAILURE = "GB0092"

_LOGGED_AT = re.compile(r"Graph break .*?in user code at (?P<path>.+):(?P<line>\d+)")
_FRAME = re.compile(r'File "(?P<path>[^"]+)", line (?P<line>\d+), in ')
_GB_ID = re.compile(r"/gb/gb(?P<id>\d{4})\.html")


@functools.lru_cache(maxsize=65536)
def normalise(path: str) -> str:
    """Cached: every frame of every break's traceback is normalised, and realpath is a stat per part."""
    return os.path.normcase(os.path.realpath(path))


class Tree:
    """The project's Python files: everything under the roots, except under `exclude` (the
    environment's installed packages, when the project is not itself one of them)."""

    def __init__(self, roots: Iterable[str], exclude: Iterable[str] = ()) -> None:
        self.roots = tuple(normalise(r) for r in roots)
        self.exclude = tuple(normalise(e) for e in exclude)
        self._cache: dict[str, bool] = {}

    def __contains__(self, path: str) -> bool:
        hit = self._cache.get(path)
        if hit is None:
            real = normalise(path)
            hit = real.endswith(".py") and _under(real, self.roots) and not _under(real, self.exclude)
            self._cache[path] = hit
        return hit


def _under(path: str, roots: tuple[str, ...]) -> bool:
    return any(path == root or path.startswith(root + os.sep) for root in roots)


@dataclass(frozen=True)
class Break:
    location: Location | None  # the innermost frame inside the tree; None when no frame is
    reason: str  # Dynamo's one-line reason ("Data-dependent branching")
    gb_id: str  # "GB0170", or "" when Dynamo gave none
    stack: tuple[Location, ...]
    source: str = "explain"  # "explain" (break_reasons) or "log" (only in the graph_breaks log)
    explanation: str = ""  # Dynamo's "Explanation:" line for the break (the underlying one's), when it gives one


@dataclass
class Explained:
    graph_count: int
    graph_break_count: int
    breaks: list[Break] = field(default_factory=list)
    recompiles: int = 0  # frames compiled again because a guard failed (the `recompiles` log)
    fallbacks: int = 0  # frames Dynamo gave up on and ran eagerly

    @property
    def lines(self) -> set[Location]:
        return {b.location for b in self.breaks if b.location is not None}

    @property
    def unmapped(self) -> list[Break]:
        """Breaks with no frame inside the tree (in a dependency called from outside it)."""
        return [b for b in self.breaks if b.location is None]


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextlib.contextmanager
def graph_break_log(trace_source: bool = False) -> Iterator[_Collect]:
    """Collect Dynamo's graph_breaks (and recompiles) log records without printing them; with
    `trace_source`, also its "TRACE starts_line" record of each source line it traces (one
    `set_logs` call: a second would reset the first's settings). Lines in resume functions are
    the source's own while inside (true_resume_lines)."""
    with true_resume_lines():  # the lines logged and explained are the source's own
        collector = _Collect()
        with _logger_caches_cleared_once():
            torch._logging.set_logs(graph_breaks=True, recompiles=True, trace_source=trace_source)
        torch_logger = logging.getLogger("torch._dynamo")  # set_logs stops propagation here
        muted = list(torch_logger.handlers)
        for handler in muted:
            torch_logger.removeHandler(handler)
        torch_logger.addHandler(collector)
        try:
            yield collector
        finally:
            torch_logger.removeHandler(collector)
            with _logger_caches_cleared_once():
                torch._logging.set_logs()
            for handler in muted:
                if handler not in torch_logger.handlers:
                    torch_logger.addHandler(handler)


@contextlib.contextmanager
def _logger_caches_cleared_once() -> Iterator[None]:
    """`set_logs` sets the level of each of torch's thousands of loggers, and every `setLevel` clears
    the level cache of every logger in the process: 20-40 ms a call, twice per explained call. The
    caches are cleared once, after the last level is set, which leaves the same state (nothing logs
    in between)."""
    manager: Any = logging.Logger.manager
    if "_clear_cache" not in type(manager).__dict__:  # a Python without the cache
        yield
        return
    manager._clear_cache = lambda: None  # an instance attribute, shadowing the method
    try:
        yield
    finally:
        del manager._clear_cache
        manager._clear_cache()


def recompiles(messages: Iterable[str]) -> int:
    return sum(1 for message in messages if message.startswith("Recompiling function"))


def logged_break(message: str, tree: Tree) -> Break:
    """One `graph_breaks` log record as a Break: its reason title, id and user traceback. The id is
    the first `gbNNNN` page the record links (the underlying break's, when Dynamo wrapped it), else
    the registry's id for the title."""
    stack = logged_stack(message)
    reason = _reason(message)
    gb = _GB_ID.search(message)
    return Break(innermost(stack, tree), reason, f"GB{gb['id']}" if gb else gb_id_of(reason), stack, "log",
                 explanation_of(message))


def logged_stack(message: str) -> tuple[Location, ...]:
    """The user traceback of a logged break, innermost last; its `at FILE:LINE` when suppressed."""
    _, _, traceback = message.partition("User code traceback:")
    stack = [(normalise(m["path"]), int(m["line"])) for m in _FRAME.finditer(traceback)]
    at = _LOGGED_AT.search(message)
    if at is not None:
        stack.append((normalise(at["path"]), int(at["line"])))
    return tuple(stack)


def _reason(message: str) -> str:
    """The reason's title in a `graph_breaks` log record (reason_title)."""
    return reason_title(message.partition("Graph Break Reason:")[2])


# Lines Dynamo puts before the break that caused them: "...when attempting to trace CALL" only says
# the break happened inside a call; "Failed to handle graph break gracefully. Skipping the function
# and falling back to eager. Graph break encountered:" says it could not resume after it (a break
# inside a `with` block or a `try`), and the underlying break follows.
_WRAPPERS = ("Encountered graph break when attempting to trace", "Failed to handle graph break gracefully")
# A reason cut off after its announcement: the content, if any, is on the next line.
_CUT_OFF = re.compile(r"\s*Graph break encountered:?$", re.IGNORECASE)


def reason_title(text: str) -> str:
    """The first line of a reason that says something ("Data-dependent branching"), past Dynamo's
    wrapper lines and headers cut off at their colon, whose content is on the next line."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    while len(lines) > 1 and (lines[0].startswith(_WRAPPERS) or lines[0].endswith(":")):
        lines.pop(0)
    title = _CUT_OFF.sub("", lines[0]).rstrip(":").strip() if lines else ""
    return title or "graph break (Dynamo gave no reason)"


def explanation_of(text: str) -> str:
    """The first `Explanation:` line of a reason or log record ("" when none): Dynamo's wrapper
    lines carry none, so it is the underlying break's."""
    for line in text.splitlines():
        head, found, rest = line.strip().partition("Explanation:")
        if found and not head:
            return rest.strip()
    return ""


@functools.cache
def _registry() -> dict[str, str]:
    """Dynamo's graph-break registry, type -> id (a type listed twice keeps its last id, as
    Dynamo's own documentation link does); empty when this torch has none."""
    try:
        path = os.path.join(os.path.dirname(torch._dynamo.__file__), "graph_break_registry.json")
        with open(path, encoding="utf-8") as file:
            registry = json.load(file)
        return {entry["Gb_type"]: gb_id for gb_id, entries in registry.items() for entry in entries}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}


def gb_id_of(gb_type: str) -> str:
    """The registry's id for a graph-break type ("GB0170"), or "" when it lists none."""
    return _registry().get(gb_type, "")


def innermost(stack: tuple[Location, ...], tree: Tree) -> Location | None:
    inside = [location for location in stack if location[0] in tree]
    return inside[-1] if inside else None


def _twin(logged: list[Break]) -> Break | None:
    """The logged break an explain reason at their line is: the last one logged there (a `with`
    block's own break follows the one inside it), unless that is a reconstruction failure after
    another break at the line: Dynamo failing to resume past that break (an autograd.Function's
    context after `ctx.mark_dirty` broke in its inlined forward), whose id is the cause's."""
    causes = [b for b in logged if b.gb_id != RECONSTRUCTION_FAILURE]
    return causes[-1] if causes else (logged[-1] if logged else None)


def explain_breaks(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], tree: Tree) -> Explained:
    """Run `torch._dynamo.explain(fn)` (it resets Dynamo's caches before and after) and map every
    break into `tree`. break_reasons is the ground truth, not graph_break_count: on torch 2.13 some
    reasons (e.g. `with open(...)`) come with graph_count=1 and graph_break_count=0."""
    with warnings.catch_warnings(), graph_break_log() as log:
        warnings.simplefilter("ignore")
        result = torch._dynamo.explain(fn)(*args, **kwargs)
    return mapped_breaks(result.graph_count, result.graph_break_count, result.break_reasons, log.messages, tree)


def mapped_breaks(graph_count: int, graph_break_count: int, break_reasons: Iterable[Any], messages: Iterable[str],
                  tree: Tree) -> Explained:
    """explain's break reasons and the graph_breaks log's records, each break mapped into `tree`
    once (the log's reason and id are preferred: "generic_jump TensorVariable()" is not readable)."""
    explained = Explained(graph_count, graph_break_count)
    logged = [logged_break(message, tree) for message in messages if "Graph break" in message]
    logged_at: dict[Location, list[Break]] = {}
    for logged_one in logged:
        if logged_one.location is not None:
            logged_at.setdefault(logged_one.location, []).append(logged_one)
    for reason in break_reasons:
        stack = tuple((normalise(f.filename), f.lineno) for f in (reason.user_stack or []) if f.lineno)
        location = innermost(stack, tree)
        twin = _twin(logged_at.get(location, []) if location is not None else [])
        title = twin.reason if twin else reason_title(reason.reason)
        explained.breaks.append(Break(location, title, twin.gb_id if twin else gb_id_of(title), stack,
                                      explanation=(twin.explanation if twin else "") or explanation_of(reason.reason)))
    seen = explained.lines
    for logged_one in logged:
        if logged_one.location is not None and logged_one.location not in seen:
            seen.add(logged_one.location)
            explained.breaks.append(logged_one)
    return explained
