"""0-d tensors made elsewhere as an index: `x[:, best(scores)]`, `i = self._pick(x); x[i]` (GM302).

Measured on torch 2.13 (benchmarks/spellings/dd_helper_scalar.py, tests/fixtures/rules/
flow_scalar_returns.py): indexing with a 0-d integer tensor reads it back as an int (GB0033,
`aten._local_scalar_dense`) wherever it was made, in a helper whose result is the key too. The
function analysis drafts `x[key]` when the key is only call results
(`FunctionSummary.scalar_index_drafts`); the draft stands when every callee of each such call
returns a 0-d tensor by construction on every path (tensor_rank.py: `return scores.argmax()`), or
what a helper it calls returns (`FunctionSummary.scalar_returns`). A helper that returns one on
some paths only, or a 1-d index (`argmax(0, keepdim=True)`, which gathers), is not judged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from graphmend_bot.analysis.masks import MaskReturns
from graphmend_bot.vocabulary.kind import Kind

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft


def scalars_made_elsewhere(
    program: Program,
    targets: Mapping[tuple[FunctionId, int], list[FunctionId]],
    holds: Callable[[FunctionId, Kind], bool],
) -> list[TracedDraft]:
    """The drafts of traced `x[key]` whose key is a 0-d tensor a helper returns."""
    from graphmend_bot.analysis.scope import TracedDraft

    returns_scalar = MaskReturns(program, targets, field="scalar_returns")
    found: list[TracedDraft] = []
    for fid in program.traced_in_order():
        function = program.function(fid)
        if not function.scalar_index_drafts or fid[0] in program.dependency_modules:
            continue
        for sites, draft in function.scalar_index_drafts:
            if holds(fid, draft.deps) and all(returns_scalar.at(fid, site) for site in sites):
                found.append(TracedDraft(program.modules[fid[0]], function, draft))
    return found
