"""`with` on a context manager of the tree that breaks inside: Dynamo breaks at the `with` line
too (GM660).

Measured on torch 2.13 (tests/fixtures/rules/GM660_breaking_context_manager.py): a break inside a
`@contextlib.contextmanager` generator (before or after its `yield`: a `print`, an `.item()`), or
inside the `__enter__` or `__exit__` of a class, happens where Dynamo cannot resume (in the
manager's frame, under the `with`), so it goes back to the last point of the function it can
resume at, compiles the graph up to there and runs the rest of the function eagerly: the census
records "step_unsupported" at that point, the `with` line, beside the break inside. Dynamo keeps
such a point only at a statement outside any `try` or `with` block once the graph holds two
operations (symbolic_convert's `speculate` under `is_non_empty_graph`); with fewer it skips the
whole frame and only the line inside breaks. So the traversal drafts a `with` entering a call
after two tensor operations at the top of the function (function_statements.py, which also
records the `__enter__` and `__exit__` a class's call runs, so the scope traces them), and the
finding stands when one of those sites runs such a generator or method that breaks (itself or in
a callee) other than on an error or misconfiguration branch (`Draft.rare`: an `except` around the
`yield`, a warning on a bad argument; the exception arm of `__exit__` is not even walked, Dynamo
runs it with no exception: narrowing.exit_without_exception). After a break Dynamo resumes with an
empty graph, so the point holds only while nothing breaks from the first of the last two operations
to the `with` (a draft there: the draft's `suppressed_if`; a call there: its `earlier` sites). A
plain helper that breaks and returns a manager is no such case: Dynamo resumes after the call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphmend_bot.analysis.held_contexts import CONTEXT_MANAGER_DECORATORS
from graphmend_bot.analysis.skipped_frames import breaks_at

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Container

    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft
    from graphmend_bot.vocabulary.kind import Kind

_MANAGER_METHODS = frozenset({"__enter__", "__exit__"})


def breaking_manager_entries(
    program: Program, pending: Collection[FunctionId], targets: dict[tuple[FunctionId, int], list[FunctionId]],
    usually_breaking: Container[FunctionId], holds: Callable[[FunctionId, Kind], bool],
) -> list[TracedDraft]:
    """The drafts of `with` statements entering a context manager of the tree that breaks other
    than on an error or misconfiguration branch, while nothing broke since the point Dynamo would
    resume at (a draft there is the draft's `suppressed_if`, a call there is `earlier`)."""
    from graphmend_bot.analysis.scope import TracedDraft

    found: list[TracedDraft] = []
    for fid in pending:
        function = program.function(fid)
        for sites, earlier, draft in function.entered_manager_drafts:
            if holds(fid, draft.suppressed_if) or breaks_at(fid, earlier, targets, usually_breaking):
                continue
            runs = [callee for site in sites for callee in targets.get((fid, site), ())]
            if any(_manager_code(program, callee) and callee in usually_breaking for callee in runs):
                found.append(TracedDraft(program.modules[fid[0]], function, draft))
    return found


def breaking_manager_bodies(
    program: Program, pending: Collection[FunctionId], targets: dict[tuple[FunctionId, int], list[FunctionId]],
    usually_breaking: Container[FunctionId], holds: Callable[[FunctionId, Kind], bool],
) -> list[TracedDraft]:
    """The drafts of `with` statements after a resumable point whose manager Dynamo inlines (named by
    the rule, or a site running a generator manager or `__enter__`/`__exit__` of the tree) and whose
    body breaks on the usual path, while nothing broke since that point (manager_bodies.py). Not where
    the manager itself breaks: breaking_manager_entries reports that `with`."""
    from graphmend_bot.analysis.scope import TracedDraft

    found: list[TracedDraft] = []
    for fid in pending:
        function = program.function(fid)
        for by_name, manager_sites, body_sites, body_kind, earlier, draft in function.manager_body_drafts:
            if holds(fid, draft.suppressed_if) or breaks_at(fid, earlier, targets, usually_breaking):
                continue
            runs = [callee for site in manager_sites for callee in targets.get((fid, site), ())]
            managers = [callee for callee in runs if _manager_code(program, callee)]
            if not (by_name or managers) or any(callee in usually_breaking for callee in managers):
                continue
            if holds(fid, body_kind) or breaks_at(fid, body_sites, targets, usually_breaking):
                found.append(TracedDraft(program.modules[fid[0]], function, draft))
    return found


def _manager_code(program: Program, fid: FunctionId) -> bool:
    """A generator context manager, or the `__enter__`/`__exit__` of a class."""
    function = program.function(fid)
    return function.name in _MANAGER_METHODS or any(
        decorator in CONTEXT_MANAGER_DECORATORS for decorator in function.decorators
    )
