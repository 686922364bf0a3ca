"""`with Cls(...):` where constructing the context manager breaks: Dynamo breaks at the `with` line
too (GB0142).

Measured on torch 2.13 (tests/fixtures/rules/GM684_manager_built_by_breaking_call.py): when the
`__init__` of a class with `__enter__` breaks (a `print`, a clock read, a call Dynamo skips), Dynamo
runs the construction eagerly and resumes after the call with the object as an input of the resumed
frame: an object built outside the graph, which it cannot enter ("Dynamo does not know how to enter
a `Section` context manager", the graph_breaks log), wherever the `with` stands in the function, and
however many operations came before. Not in a loop or a `try` block (the break inside makes Dynamo
skip the frame, measured), nor for a `@contextlib.contextmanager` generator (its body runs on
entering: GM660), nor for a class without an `__init__` of the tree that breaks.
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft


def constructions_entered(
    program: Program,
    pending: Iterable[FunctionId],
    targets: dict[tuple[FunctionId, int], list[FunctionId]],
    usually_breaking: Container[FunctionId],
) -> list[TracedDraft]:
    """The drafts of `with` items whose call site runs the `__init__` of a context-manager class of
    the tree (not an nn.Module) that breaks other than on an error or misconfiguration branch."""
    from graphmend_bot.analysis.scope import TracedDraft

    found: list[TracedDraft] = []
    for fid in pending:
        function = program.function(fid)
        for site, draft in function.built_manager_drafts:
            if any(
                _manager_init(program, callee) and callee in usually_breaking
                for callee in targets.get((fid, site), ())
            ):
                found.append(TracedDraft(program.modules[fid[0]], function, draft))
    return found


def _manager_init(program: Program, fid: FunctionId) -> bool:
    """The `__init__` of a class with `__enter__` (its own or inherited), no nn.Module."""
    function = program.function(fid)
    cls = function.class_qualname
    return (
        function.name == "__init__"
        and cls is not None
        and not program.is_module_class(fid[0], cls)
        and program.class_method(fid[0], cls, "__enter__") is not None
    )
