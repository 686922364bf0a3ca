"""`with Cls(...):` where constructing the context manager breaks: Dynamo breaks at the `with` line
too (GB0142).

Measured on torch 2.13 (tests/fixtures/rules/GM684_manager_built_by_breaking_call.py): when the
`__init__` of a class with `__enter__` breaks (a `print`, a clock read, a call Dynamo skips), Dynamo
runs the construction eagerly and resumes after the call with the object as an input of the resumed
frame: an object built outside the graph, which it cannot enter ("Dynamo does not know how to enter
a `Section` context manager", the graph_breaks log), wherever the `with` stands in the function, and
however many operations came before. Not in a loop or a `try` block (the break inside makes Dynamo
skip the frame, measured), nor for a `@contextlib.contextmanager` generator (its body runs on
entering: GM660), nor for a class without an `__init__` of the tree that breaks, nor when every
break of the `__init__` lies under `if verbose:` and the call leaves `verbose` at its falsy default
or passes a falsy literal (parameter_guards.py: measured, the `with` then compiles).
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from typing import TYPE_CHECKING

from graphmend_bot.analysis.parameter_guards import Passed, dead_rows

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft

Targets = dict[tuple["FunctionId", int], list["FunctionId"]]


def constructions_entered(
    program: Program,
    pending: Iterable[FunctionId],
    targets: Targets,
    usually_breaking: Container[FunctionId],
    standing: Iterable[TracedDraft],
) -> list[TracedDraft]:
    """The drafts of `with` items whose call site runs the `__init__` of a context-manager class of
    the tree (not an nn.Module) that breaks other than on an error or misconfiguration branch, on a
    line the call's arguments run. `standing`: the findings `usually_breaking` was made from."""
    from graphmend_bot.analysis.scope import TracedDraft

    rows = _BreakRows(program, targets, usually_breaking, standing)
    found: list[TracedDraft] = []
    for fid in pending:
        function = program.function(fid)
        for site, passed, draft in function.built_manager_drafts:
            if any(
                _manager_init(program, callee) and callee in usually_breaking and rows.run(callee, passed)
                for callee in targets.get((fid, site), ())
            ):
                found.append(TracedDraft(program.modules[fid[0]], function, draft))
    return found


class _BreakRows:
    """Where a breaking `__init__` breaks: the rows of its own findings off an error branch, and of
    its calls to a function that breaks so."""

    def __init__(
        self,
        program: Program,
        targets: Targets,
        usually_breaking: Container[FunctionId],
        standing: Iterable[TracedDraft],
    ) -> None:
        self._program = program
        self._targets = targets
        self._breaking = usually_breaking
        self._standing = standing
        self._own: dict[FunctionId, set[int]] | None = None

    def run(self, init: FunctionId, passed: Passed) -> bool:
        """Whether a call passing `passed` runs a row of `init` that breaks."""
        guards = self._program.function(init).param_guards
        dead = dead_rows(guards, passed) if guards else []
        if not dead:
            return True
        rows = self._rows(init)  # none found: it breaks some way not told here, so everywhere
        return not rows or any(not any(first <= row <= last for first, last in dead) for row in rows)

    def _rows(self, init: FunctionId) -> set[int]:
        if self._own is None:
            self._own = {}
            for traced in self._standing:
                if not traced.draft.rare:
                    fid = (traced.module.module, traced.function.qualname)
                    self._own.setdefault(fid, set()).add(traced.draft.row)
        function = self._program.function(init)
        rows = set(self._own.get(init, ()))
        rows.update(
            site.row
            for index, site in enumerate(function.calls)
            if any(callee in self._breaking for callee in self._targets.get((init, index), ()))
        )
        return rows


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
