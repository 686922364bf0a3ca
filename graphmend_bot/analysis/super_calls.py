"""`super().NAME(...)` that reaches `object`'s own NAME, which Dynamo cannot call (GB0006, GM619).

Measured on torch 2.13 (tests/coverage_probes/gb0006_super_object_method.py): through `super()`
Dynamo calls Python functions and a few of `object`'s methods it models, not `object.__eq__`,
`__hash__`, `__repr__`, `__str__`, `__format__` or `__dir__` (slot wrappers and method
descriptors: "Attempted to call a super() attribute that is not a function or method"). The call
reaches `object` when no base of the class defines NAME: every base is a class of the tree
(neither decorated nor binding NAME other than by `def`), `object`, or torch.nn.Module, which
defines only `__repr__` and `__dir__` of them. Any other base may define it: not reported.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from graphmend_bot.vocabulary import known_names as V

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft

_OBJECT = frozenset({"object", "builtins.object"})
_NN_MODULE = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module", "nn.Module"})


def dunders_unknown(node: ast.ClassDef) -> bool:
    """A class whose `object` methods are not all `def`s of its body: a decorator may write them
    (`@dataclass`: `__eq__`, `__repr__`), an assignment binds one (`__hash__ = Base.__hash__`)."""
    if node.decorator_list:
        return True
    for statement in node.body:
        targets = (
            statement.targets if isinstance(statement, ast.Assign)
            else [statement.target] if isinstance(statement, ast.AnnAssign) else []
        )
        if any(isinstance(t, ast.Name) and t.id in V.OBJECT_METHODS_NOT_VIA_SUPER for t in targets):
            return True
    return False


def object_method_super_calls(program: Program, traced: set[FunctionId]) -> list[TracedDraft]:
    """The drafts of traced `super().NAME(...)` calls whose class leaves NAME to `object`."""
    from graphmend_bot.analysis.scope import TracedDraft

    found: list[TracedDraft] = []
    for fid in sorted(traced):
        function = program.function(fid)
        if not function.super_object_drafts or fid[0] in program.dependency_modules:
            continue
        owner = function.class_qualname
        for method, draft in function.super_object_drafts:
            if owner is not None and owner in program.modules[fid[0]].classes and _bases_leave_to_object(
                program, fid[0], owner, method, set()
            ):
                found.append(TracedDraft(program.modules[fid[0]], function, draft))
    return found


def _bases_leave_to_object(program: Program, module: str, class_qualname: str, method: str,
                           seen: set[tuple[str, str]]) -> bool:
    """No base of the class (nor theirs) defines `method`: `super()` finds `object`'s."""
    for base in program.modules[module].classes[class_qualname].bases:
        if base in _OBJECT:
            continue
        if base in _NN_MODULE:
            if method in V.NN_MODULE_OBJECT_METHODS:
                return False
            continue
        found = program.resolve_class(module, base)
        if found is None:
            return False  # a class outside the tree may define it
        summary = program.modules[found[0]].classes[found[1]]
        if method in summary.methods or summary.dunders_unknown:
            return False
        if found not in seen:
            seen.add(found)
            if not _bases_leave_to_object(program, found[0], found[1], method, seen):
                return False
    return True
