"""The body of a `with` walked by the traversal, for GM660: Dynamo cannot break under a context
manager it inlines (a class of the tree with `__enter__`, a `@contextlib.contextmanager` generator,
`contextlib.suppress`, ...), so a break in the body makes it go back to the last point it can resume
at, the `with` line after two operations ("step_unsupported"), and run the rest eagerly.

Measured on torch 2.13 (tests/fixtures/rules/GM660_breaking_context_manager.py): symbolic_convert
turns a break under a GenericContextWrappingVariable into "Graph break under
GenericContextWrappingVariable" and rolls back to its checkpoint. Managers Dynamo models itself
(grad modes, `torch.autocast`, `contextlib.nullcontext`, `record_function`, `sdpa_kernel`) take the
break where it is, and nothing happens at the `with`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from graphmend_bot.analysis import checks as C
from graphmend_bot.vocabulary.kind import Kind

if TYPE_CHECKING:
    from graphmend_bot.analysis.function_reporting import FindingReporter


@contextmanager
def walked_body(analyzer: FindingReporter, node: ast.With | ast.AsyncWith) -> Iterator[None]:
    """Walk the body under `_with_depth`; after it, when the `with` stood at a point Dynamo can
    resume at, hand GM660 what the body holds: its call sites and the kinds of its usual drafts."""
    resumable = analyzer._resumable() if isinstance(node, ast.With) else None
    manager_sites = analyzer._resumable_entry[1] if resumable is not None else ()
    analyzer._resumable_entry = (analyzer._resumable_entry[0], ())  # consumed: a later `with` sets its own
    first_site, first_draft = len(analyzer.summary.calls), len(analyzer._usual_draft_kinds)
    analyzer._with_depth += 1
    try:
        yield
    finally:
        analyzer._with_depth -= 1
    if resumable is None or not C.MANAGER_BODIES:
        return
    body_sites = tuple(range(first_site, len(analyzer.summary.calls)))
    body_kind = Kind.union(analyzer._usual_draft_kinds[first_draft:])
    if not body_sites and not body_kind:
        return
    analyzer._manager_body_entry = (resumable, manager_sites, body_sites, body_kind)
    entered = node.items[0].context_expr
    name = analyzer.resolve(entered.func) if isinstance(entered, ast.Call) else None
    for check_body in C.MANAGER_BODIES:
        check_body(analyzer, entered, name)
