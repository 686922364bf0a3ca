"""The eager rest of a frame after a call in a loop body whose callee breaks.

Measured on torch 2.13 (tests/fixtures/precision/loop_calls.py): a graph break inside a `for` or
`while` body makes Dynamo skip the frame ("Skipping frame because there is a graph break in a for/
while loop"), whether the break is the body's own or one in a callee it inlines at a call there
(`for layer in self.layers: x = layer(x)` with a layer that prints). What the frame runs after that
call, in the loop body and past the loop, runs eagerly and breaks nowhere; what it ran before
stands. A body's own breaks are the analyzer's (FunctionState._eager_after); the callees' are known
only once the program is solved, so their eager rests are found here, as rows after the call.
Only when the call runs: a loop under `if self.looped:` leaves its `else` arm, and what follows the
`if` when the flag is off, traced (measured: tests/fixtures/precision/loop_calls.py's `branched`),
so the rest ends with the conditional block holding the call (conditional_blocks.py).
Comprehensions the skipped frame runs are frames of their own (skipped_frames.py): they stay.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Container
from typing import TYPE_CHECKING

from graphmend_bot.analysis.conditional_blocks import conditional_tail
from graphmend_bot.analysis.held_module_reads import function_definition, parsed_once

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program


def eager_after_loop_calls(
    program: Program,
    targets: dict[tuple[FunctionId, int], list[FunctionId]],
    breaking: Container[FunctionId],
) -> dict[FunctionId, list[tuple[int, int]]]:
    """Per traced function: for each loop-body call whose callees all break on the usual path
    (`breaking`), the rows that run eagerly after it: from the next row to the end of the
    conditional block holding the call, else of the function. All callees, not
    one: `self._step_func(...)` resolves to every subclass's override, and one breaking says
    nothing of the one that runs (torchdiffeq's `integrate`, tests/test_wild_subset.py)."""
    rows: dict[FunctionId, list[tuple[int, int]]] = {}
    parsed: dict[str, ast.Module | None] = {}
    for fid in program.traced_functions():
        function = program.function(fid)
        if not function.loop_sites or fid[0] in program.dependency_modules:
            continue
        broken = [
            function.calls[site].row
            for site in set(function.loop_sites)
            if _always_breaks(fid, site, targets, breaking)
        ]
        if broken:
            tree = parsed_once(program.modules[fid[0]].path, program.source_of, parsed)
            definition = function_definition(tree, fid[1])
            rows[fid] = [
                (row + 1, conditional_tail(definition, row) if definition is not None else sys.maxsize)
                for row in sorted(set(broken))
            ]
    return rows


def _always_breaks(
    fid: FunctionId,
    site: int,
    targets: dict[tuple[FunctionId, int], list[FunctionId]],
    breaking: Container[FunctionId],
) -> bool:
    callees = targets.get((fid, site), ())
    return bool(callees) and all(callee in breaking for callee in callees)
