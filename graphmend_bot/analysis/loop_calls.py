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
And only when the callee surely breaks: a finding in an arm of `if self.training:` or `if verbose:`
breaks only in that mode or when the flag is passed, and in eval mode, or with the flag's default,
Dynamo traces the frame on (measured: loop_calls.py's `EvalLayers`, `QuietLayers`). The solver's
breaking functions are an upper bound, so each callee must also break on its unconditional path,
by a finding there that names no mode, or by a call there whose callees all surely break.
Comprehensions the skipped frame runs are frames of their own (skipped_frames.py): they stay.
The conditional blocks are the summaries' (FunctionSummary.conditional_spans): nothing is parsed here.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Container, Iterable
from typing import TYPE_CHECKING

from graphmend_bot.analysis.conditional_blocks import it_runs_always, tail_in
from graphmend_bot.analysis.modes import modes_named

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft


def eager_after_loop_calls(
    program: Program,
    targets: dict[tuple[FunctionId, int], list[FunctionId]],
    breaking: Container[FunctionId],
    standing: list[TracedDraft],
) -> dict[FunctionId, list[tuple[int, int]]]:
    """Per traced function: for each loop-body call whose callees all break on the usual path
    (`breaking`, the solver's) and surely break (by the `standing` drafts), the rows that run
    eagerly after it: from the next row to the end of the conditional block holding the call, else
    of the function. All callees, not one: `self._step_func(...)` resolves to every subclass's
    override, and one breaking says nothing of the one that runs (torchdiffeq's `integrate`,
    tests/test_wild_subset.py)."""
    candidates: dict[FunctionId, list[int]] = {}
    for fid in program.traced_functions():
        function = program.function(fid)
        if function.loop_sites and fid[0] not in program.dependency_modules:
            sites = [
                site for site in set(function.loop_sites) if _always_breaks(fid, site, targets, breaking)
            ]
            if sites:
                candidates[fid] = sites
    if not candidates:
        return {}
    loop_callees = {
        callee for fid, sites in candidates.items() for site in sites for callee in targets[(fid, site)]
    }
    surely = surely_breaking(program, targets, standing, loop_callees)
    rows: dict[FunctionId, list[tuple[int, int]]] = {}
    for fid, sites in candidates.items():
        function = program.function(fid)
        broken = sorted({function.calls[site].row for site in sites if _always_breaks(fid, site, targets, surely)})
        if broken:
            spans = program.conditional_spans(program.modules[fid[0]], function)
            rows[fid] = [(row + 1, tail_in(spans, row)) for row in broken]
    return rows


def surely_breaking(
    program: Program,
    targets: dict[tuple[FunctionId, int], list[FunctionId]],
    standing: list[TracedDraft],
    callees: Iterable[FunctionId],
) -> set[FunctionId]:
    """Those of `callees` and of what they call that break whenever they run: a lower bound, unlike
    the solver's set. Only that part of the call graph is read: the least fixpoint from the
    functions' own findings up."""
    reached = set(callees)
    pending = list(reached)
    sites_calling: dict[FunctionId, list[tuple[FunctionId, int]]] = {}
    while pending:
        fid = pending.pop()
        for site in range(len(program.function(fid).calls)):
            for callee in set(targets.get((fid, site), ())):
                sites_calling.setdefault(callee, []).append((fid, site))
                if callee not in reached:
                    reached.add(callee)
                    pending.append(callee)
    surely: set[FunctionId] = set()
    for traced_draft in standing:
        draft = traced_draft.draft
        fid = (traced_draft.module.module, traced_draft.function.qualname)
        if (
            fid in reached
            and fid not in surely
            and not draft.rare
            and not modes_named(draft.message)
            and _unconditional(program, fid, draft.row)
        ):
            surely.add(fid)
    queue = deque(surely)
    while queue:
        for caller, site in sites_calling.get(queue.popleft(), ()):
            if (
                caller not in surely
                and all(callee in surely for callee in targets[(caller, site)])
                and _unconditional(program, caller, program.function(caller).calls[site].row)
            ):
                surely.add(caller)
                queue.append(caller)
    return surely


def _unconditional(program: Program, fid: FunctionId, row: int) -> bool:
    """Whether `row` of the function runs whenever it does: in no `if` arm, handler or case."""
    return it_runs_always(program.conditional_spans(program.modules[fid[0]], program.function(fid)), row)


def _always_breaks(
    fid: FunctionId,
    site: int,
    targets: dict[tuple[FunctionId, int], list[FunctionId]],
    breaking: Container[FunctionId],
) -> bool:
    callees = targets.get((fid, site), ())
    return bool(callees) and all(callee in breaking for callee in callees)
