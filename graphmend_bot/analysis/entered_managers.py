"""`with helper(...):` on a `@contextlib.contextmanager` generator of the tree that breaks inside:
Dynamo breaks at the `with` line too (GM660).

Measured on torch 2.13 (tests/fixtures/rules/GM660_breaking_context_manager.py): a break inside
such a generator, before or after its `yield` (a `print`, an `.item()`), happens where Dynamo
cannot resume (inside the generator's frame, under the `with`), so it goes back to the last point
of the frame it can resume at, compiles the graph up to there and runs the rest of the function
eagerly: the census records "step_unsupported" at that point, the `with` line, beside the break
inside. Dynamo keeps such a point only at a statement outside any `try` or `with` block once the
graph holds two operations (symbolic_convert's `speculate` under `is_non_empty_graph`); with fewer
it skips the whole frame and only the line inside breaks. So the traversal drafts a `with` that
enters a call after two tensor operations at the top of the function (function_statements.py),
and the finding stands when the call runs such a generator and it breaks (or a callee of it does).
Not for a class with `__enter__`/`__exit__`: the scope does not trace those methods yet.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphmend_bot.analysis.held_contexts import CONTEXT_MANAGER_DECORATORS

if TYPE_CHECKING:
    from collections.abc import Collection, Container

    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft


def breaking_manager_entries(
    program: Program, pending: Collection[FunctionId], targets: dict[tuple[FunctionId, int], list[FunctionId]],
    breaking: Container[FunctionId],
) -> list[TracedDraft]:
    """The drafts of `with` statements entering a generator context manager of the tree that breaks."""
    from graphmend_bot.analysis.scope import TracedDraft

    found: list[TracedDraft] = []
    for fid in pending:
        function = program.function(fid)
        for site, draft in function.entered_manager_drafts:
            if any(_generator_manager(program, callee) and callee in breaking for callee in targets.get((fid, site), ())):
                found.append(TracedDraft(program.modules[fid[0]], function, draft))
    return found


def _generator_manager(program: Program, fid: FunctionId) -> bool:
    return any(decorator in CONTEXT_MANAGER_DECORATORS for decorator in program.function(fid).decorators)
