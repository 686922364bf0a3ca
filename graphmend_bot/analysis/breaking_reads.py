"""A property read whose getter breaks: Dynamo reports "step_unsupported" at the statement (GM657).

Measured on torch 2.13 (tests/test_breaking_reads.py): Dynamo inlines the getter, and a break in it
happens on the LOAD_ATTR of the read, an instruction it cannot resume after (its CALL handlers are
`break_graph_if_unsupported`, loads are not). So it goes back to the last point it can resume at,
compiles the graph up to there and runs the rest of the function eagerly (symbolic_convert's `step`:
"Encountered graph break that we cannot resume from"), and the census records "step_unsupported"
at that point beside the break inside the getter. That point is the start of the statement holding
the read, where the Python stack is empty (`A, B = self.model.A, self.model.B`, a read in a call's
argument, a multi-line statement: its first line), when the statement is outside any `try` or
`with` block and loop (there it is the block's or loop's own line: GM661, GM660) and the graph holds
two operations since the last break; with fewer Dynamo skips the whole frame and only the getter's
line breaks. What the frame runs after the statement breaks nowhere (eager), to the end of the
conditional block holding it (the calls that skip the block trace on). A read through a helper's
call resumes at that call: the helper's frame is inlined, and CALL is resumable.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from graphmend_bot.analysis import checks as C
from graphmend_bot.analysis.conditional_blocks import tail_in
from graphmend_bot.analysis.skipped_frames import breaks_at

if TYPE_CHECKING:
    from collections.abc import Container

    from graphmend_bot.analysis.function_state import FunctionState
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft
    from graphmend_bot.rules import Rule
    from graphmend_bot.vocabulary.kind import Kind

READ = "getter:"


def asked(state: FunctionState, node: ast.stmt, first_site: int) -> None:
    """After the traversal evaluated statement `node`, whose call sites start at `first_site`: ask the
    rules when it read a property after a point Dynamo can resume at (FunctionState._resumable,
    before this statement's own operations are counted)."""
    calls = state.summary.calls
    if state._rare_depth:
        return
    nested = state._frame_skips.nested_reads  # a comprehension's read breaks in its own frame: resumed after its CALL
    sites = tuple(site for site in range(first_site, len(calls)) if calls[site].ref.startswith(READ) and site not in nested)
    if sites and state._resumable() is not None:
        for check_read in C.BREAKING_READS:
            check_read(state, node, sites)


def report(state: FunctionState, rule: Rule, node: ast.stmt, sites: tuple[int, ...], message: str) -> None:
    """A draft at the statement's first line, standing when a getter at `sites` breaks and nothing
    broke since the resume point (a draft there: `suppressed_if`; a call there: `earlier`)."""
    checkpoint = state._resumable()
    if checkpoint is None:
        return
    line = state.lines[node.lineno - 1] if node.lineno <= len(state.lines) else ""
    first_line = ast.Pass(lineno=node.lineno, col_offset=node.col_offset, end_lineno=node.lineno,
                          end_col_offset=max(node.col_offset, len(line.rstrip().encode("utf-8"))))
    draft = state._draft(rule, first_line, message, checkpoint.kind, None)  # type: ignore[attr-defined]
    if draft is not None:
        earlier = tuple(range(checkpoint.first_site, sites[0]))
        # rows below the first, not the last row itself: a summary keeps no absolute row beside its
        # drafts', so an edit above that only shifts lines redrafts without a solve (redraft.py)
        below = (node.end_lineno or node.lineno) - node.lineno
        state.summary.breaking_read_drafts.append((sites, earlier, below, replace(draft, suppressed_if=checkpoint.breaks_since)))


def breaking_reads(
    program: Program, targets: dict[tuple[FunctionId, int], list[FunctionId]],
    usually_breaking: Callable[[], Container[FunctionId]], holds: Callable[[FunctionId, Kind], bool],
) -> list[TracedDraft]:
    """The statements whose property read runs a getter breaking on the usual path, while nothing
    broke since the point Dynamo would resume at."""
    from graphmend_bot.analysis.scope import TracedDraft

    pending = program.traced_holding(lambda f: f.breaking_read_drafts)
    if not pending:
        return []
    broken = usually_breaking()
    found: list[TracedDraft] = []
    for fid in pending:
        function = program.function(fid)
        for sites, earlier, _, draft in function.breaking_read_drafts:
            if not holds(fid, draft.deps) or holds(fid, draft.suppressed_if) or breaks_at(fid, earlier, targets, broken):
                continue
            # a site whose getters all break: an override that does not (`Model.scale` over `Base.scale`
            # read in Base.forward) may be the one run, and then Dynamo traces on (review27)
            if any((getters := targets.get((fid, site), ())) and all(g in broken for g in getters) for site in sites):
                found.append(TracedDraft(program.modules[fid[0]], function, draft))
    return found


def eager_rests(program: Program, standing: list[TracedDraft], targets: dict[tuple[FunctionId, int], list[FunctionId]],
                surely: Container[FunctionId]) -> dict[FunctionId, list[tuple[int, int]]]:
    """Per function, the rows that run eagerly after a standing GM657 statement whose getters all
    surely break (loop_calls' lower bound: a getter breaking in one mode leaves the others traced):
    from the row after the statement to the end of the conditional block holding it."""
    rests: dict[FunctionId, list[tuple[int, int]]] = {}
    for traced_draft in standing:
        function = traced_draft.function
        if not function.breaking_read_drafts:
            continue
        fid = (traced_draft.module.module, function.qualname)
        for sites, _, below, draft in function.breaking_read_drafts:
            if draft is not traced_draft.draft:
                continue
            end_row = draft.row + below
            # all of a site's getters: `self.A` resolves to each override, and one breaking says nothing of the one run
            if any((getters := targets.get((fid, site), ())) and all(g in surely for g in getters) for site in sites):
                spans = program.conditional_spans(traced_draft.module, function)
                rests.setdefault(fid, []).append((end_row + 1, tail_in(spans, draft.row)))
    return rests
