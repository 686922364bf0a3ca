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
conditional block holding it (the calls that skip the block trace on; a `try`'s `else` is not one:
it runs on the usual path). A read in an `if`, `elif`, `while` or `assert` test goes back to that
line the same way, and the arms run eagerly with the rest. A `functools.cached_property` read
before 3.12 breaks earlier, on its lock (GB0142): GM612's finding, not this one. A read through a helper's
call resumes at that call: the helper's frame is inlined, and CALL is resumable.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from graphmend_bot.analysis import checks as C
from graphmend_bot.analysis.cached_property_reads import READ_TAKES_LOCK, is_cached_property
from graphmend_bot.analysis.conditional_blocks import tail_in
from graphmend_bot.analysis.model import Draft
from graphmend_bot.analysis.operator_dunders import FALLBACKS
from graphmend_bot.analysis.skipped_frames import NOT_RESUMED_AFTER, breaks_at
from graphmend_bot.vocabulary.kind import TENSOR

if TYPE_CHECKING:
    from collections.abc import Container, Sequence

    from graphmend_bot.analysis.function_state import FunctionState
    from graphmend_bot.analysis.model import CallSite
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft
    from graphmend_bot.rules import Rule
    from graphmend_bot.vocabulary.kind import Kind

READ = "getter:"
_OBJECT_ONLY = (">__bool__", *(f">{method}" for method in FALLBACKS if method != "__bool__"))  # `if box:`, `box += 1`
QUIET = ""  # the code of a read's marker draft: its rest is eager, nothing is reported (quiet_reads)


def asked(state: FunctionState, node: ast.stmt, first_site: int) -> None:
    """After the traversal evaluated statement `node`, whose call sites start at `first_site`: ask the
    rules when it read a property after a point Dynamo can resume at (FunctionState._resumable,
    before this statement's own operations are counted)."""
    calls = state.summary.calls
    if state._rare_depth:
        return
    nested = state._frame_skips.nested_reads  # a comprehension's read breaks in its own frame: resumed after its CALL
    reads = tuple(site for site in range(first_site, len(calls)) if calls[site].ref.startswith(READ) and site not in nested)
    if state._resumable() is not None:
        dunders = tuple(site for site in range(first_site, len(calls))
                        if _operator_dunder(calls[site].ref, state.containers) and site not in nested)
        for check_read in C.BREAKING_READS if reads else ():
            check_read(state, node, reads)
        for check_dunder in C.BREAKING_DUNDERS if dunders else ():
            check_dunder(state, node, dunders)  # GM658: an operator's, `for`'s, `in`'s or unpacking's dunder
    elif (reads := reads or _truth_tests(calls, first_site, nested)) and not (
            state._try_depth or state._with_depth or state._loop_depth):
        # (not an operator's dunder: a tensor operand's own break on the statement is still reported by
        # Dynamo, tests/test_frame_skipping_reads.py `operator`; a truth test's or `+=`'s object is
        # the one operand: tests/test_breaking_implicit_dunders.py)
        # fewer than two operations: no point to go back to, Dynamo skips the frame, and what it runs
        # after the statement is eager all the same (a marker, never reported: `quiet_reads`)
        below = _last_row(node) - node.lineno
        # the read's own span when it is the statement's one read and starts on its first row: what
        # the statement evaluates after it runs eagerly too (statement_tails)
        span = state._frame_skips.read_spans.get(reads[0]) if len(reads) == 1 else None
        if span is not None and _in_target(node, span):
            span = None  # an assignment evaluates its value before its targets
        # columns 1-based, as a draft's
        column, end_row, end_column = (span[1] + 1, span[2], span[3] + 1) if span is not None and span[0] == node.lineno \
            else (0, node.lineno, 0)
        marker = Draft(QUIET, "", node.lineno, column, end_row, end_column, "", TENSOR, "")
        state.summary.breaking_read_drafts.append((reads, (), below, marker))


def _truth_tests(calls: Sequence[CallSite], first_site: int, nested: Container[int]) -> tuple[int, ...]:
    """The statement's truth tests and in-place operators on an object (`if box:`, `box += 1`)."""
    return tuple(site for site in range(first_site, len(calls))
                 if calls[site].ref.startswith("instance:") and calls[site].ref.endswith(_OBJECT_ONLY) and site not in nested)


def _operator_dunder(ref: str, containers: Container[str]) -> bool:
    """A dunder an instruction Dynamo does not resume after runs (operator_dunders.py, skipped_frames),
    not a submodule container's (`for layer in self.layers`: torch's ModuleList, never the tree's)."""
    if not ref.startswith("instance:"):
        return False
    receiver, _, dunder = ref.rpartition(">")
    return dunder in NOT_RESUMED_AFTER and receiver.removeprefix("instance:attr:") not in containers


def _in_target(node: ast.stmt, span: tuple[int, int, int, int]) -> bool:
    value = getattr(node, "value", None) if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) else None
    return value is not None and span[:2] < (value.lineno, value.col_offset)


def _last_row(node: ast.stmt) -> int:
    """The statement's last row, or its test's for an `if` or `while` (a `for`'s iterable): its arms
    (body) are part of the rest."""
    last = node.test.end_lineno if isinstance(node, (ast.If, ast.While)) else \
        node.iter.end_lineno if isinstance(node, (ast.For, ast.AsyncFor)) else node.end_lineno
    return last or node.lineno


def ask_test(state: FunctionState, node: ast.If | ast.While | ast.Assert | ast.For | ast.AsyncFor, first_site: int) -> None:
    """After an `if`, `elif`, `while` or `assert` test (a `for`'s iterable) was evaluated: a read in it
    goes back to the statement's line as any other's does (tests/test_breaking_reads.py), and the arms
    (the loop) run eagerly."""
    if state._frame_skips.read_since(first_site):
        asked(state, node, first_site)


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
        below = _last_row(node) - node.lineno
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
    # a cached_property's read enters its lock before the getter runs (before 3.12): Dynamo breaks
    # there, on the `with` it cannot enter (GB0142), and GM612 reports it
    def breaks(getter: FunctionId) -> bool:
        return getter in broken and not (READ_TAKES_LOCK and is_cached_property(program, getter))

    found: list[TracedDraft] = []
    for fid in pending:
        function = program.function(fid)
        for sites, earlier, _, draft in function.breaking_read_drafts:
            if (draft.code == QUIET or not holds(fid, draft.deps) or holds(fid, draft.suppressed_if)
                    or breaks_at(fid, earlier, targets, broken)):
                continue
            # a site whose getters all break: an override that does not (`Model.scale` over `Base.scale`
            # read in Base.forward) may be the one run, and then Dynamo traces on (review27)
            if any((getters := targets.get((fid, site), ())) and all(breaks(g) for g in getters)
                   for site in sites):
                found.append(TracedDraft(program.modules[fid[0]], function, draft))
    return found


def quiet_reads(
    program: Program, reported: list[TracedDraft], holds: Callable[[FunctionId, Kind], bool],
    targets: dict[tuple[FunctionId, int], list[FunctionId]],
) -> list[TracedDraft]:
    """The read statements not `reported` (breaking_reads) after which Dynamo runs the frame eagerly
    all the same: those before two operations (a marker), and those with a break since the first of
    the last two (a call there or a draft): the frame it resumed in holds too few to go back to, so
    it skips that one (tests/test_breaking_reads.py). eager_rests keeps those whose getters surely break.
    Only the tree's own getters: a dependency's property (`covar.batch_shape` of an installed LinOp)
    breaking inside, Dynamo still reports the statements after the read (tests/test_dependency_breaks.py)."""
    from graphmend_bot.analysis.scope import TracedDraft

    standing = {id(traced_draft.draft) for traced_draft in reported}
    quiet: list[TracedDraft] = []
    for fid in program.traced_holding(lambda f: f.breaking_read_drafts):
        function = program.function(fid)
        for sites, _, _, draft in function.breaking_read_drafts:
            getters = [getter for site in sites for getter in targets.get((fid, site), ())]
            if any(getter[0] in program.dependency_modules for getter in getters):
                continue
            if id(draft) not in standing and (draft.code == QUIET or holds(fid, draft.deps)):
                quiet.append(TracedDraft(program.modules[fid[0]], function, draft))
    return quiet


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


def statement_tails(standing: list[TracedDraft], targets: dict[tuple[FunctionId, int], list[FunctionId]],
                    surely: Container[FunctionId]) -> dict[FunctionId, list[tuple[int, int, int, int, int]]]:
    """Per function, the quiet reads (a marker: Dynamo skips the frame at the read) whose getter surely
    breaks: (read row, column, end row, end column, the statement's last row). The statement's own
    operations evaluated after the read (`self.tensor.as_subclass(torch.Tensor)`: the call on what it
    read; an enclosing `if` test) run eagerly, as the rows after it do (tests/test_breaking_reads.py)."""
    tails: dict[FunctionId, list[tuple[int, int, int, int, int]]] = {}
    for traced_draft in standing:
        draft = traced_draft.draft
        if draft.code != QUIET or (draft.end_row, draft.end_column) == (draft.row, 0):
            continue
        fid = (traced_draft.module.module, traced_draft.function.qualname)
        for sites, _, below, marker in traced_draft.function.breaking_read_drafts:
            if marker is draft and all((getters := targets.get((fid, site), ())) and all(g in surely for g in getters)
                                       for site in sites):
                tails.setdefault(fid, []).append((draft.row, draft.column, draft.end_row, draft.end_column, draft.row + below))
    return tails


def after_read(draft: Draft, tail: tuple[int, int, int, int, int]) -> bool:
    """Whether `draft` is an operation of the read's statement Python evaluates after the read: one
    starting at or past the read's end, or one whose expression holds the read."""
    row, column, end_row, end_column, last_row = tail
    if not row <= draft.row <= last_row:
        return False
    starts_after = (draft.row, draft.column) >= (end_row, end_column)
    holds_read = (draft.row, draft.column) <= (row, column) and (draft.end_row, draft.end_column) >= (end_row, end_column)
    return starts_after or holds_read
