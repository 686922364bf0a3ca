"""The eager rest of a frame after a call in a loop body whose callee breaks.

Measured on torch 2.13 (tests/fixtures/precision/loop_calls.py): a graph break inside a `for` or
`while` body makes Dynamo skip the frame ("Skipping frame because there is a graph break in a for/
while loop"), whether the break is the body's own or one in a callee it inlines at a call there
(`for layer in self.layers: x = layer(x)` with a layer that prints). What the frame runs after that
call, in the loop body and past the loop, runs eagerly and breaks nowhere; what it ran before
stands. A body's own breaks are the analyzer's (FunctionState._eager_after); the callees' are known
only once the program is solved, so their eager rests are found here, as rows after the call.
Comprehensions the skipped frame runs are frames of their own (skipped_frames.py): they stay.
"""

from __future__ import annotations

from collections.abc import Container
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program


def eager_after_loop_calls(
    program: Program,
    targets: dict[tuple[FunctionId, int], list[FunctionId]],
    breaking: Container[FunctionId],
) -> dict[FunctionId, int]:
    """Per traced function: the first row after its earliest loop-body call whose callees all break
    on the usual path (`breaking`); from there to the end of the function it runs eagerly. All, not
    one: `self._step_func(...)` resolves to every subclass's override, and one breaking says
    nothing of the one that runs (torchdiffeq's `integrate`, tests/test_wild_subset.py)."""
    rows: dict[FunctionId, int] = {}
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
            rows[fid] = min(broken) + 1
    return rows


def _always_breaks(
    fid: FunctionId,
    site: int,
    targets: dict[tuple[FunctionId, int], list[FunctionId]],
    breaking: Container[FunctionId],
) -> bool:
    callees = targets.get((fid, site), ())
    return bool(callees) and all(callee in breaking for callee in callees)
