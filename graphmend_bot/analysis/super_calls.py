"""`super().NAME(...)` that reaches `object`'s own NAME, which Dynamo cannot call (GB0006, GM619).

Measured on torch 2.13 (tests/coverage_probes/gb0006_super_object_method.py): through `super()`
Dynamo calls Python functions and a few of `object`'s methods it models, not `object.__eq__`,
`__hash__`, `__repr__`, `__str__`, `__format__` or `__dir__` (slot wrappers and method
descriptors: "Attempted to call a super() attribute that is not a function or method"). `super()`
follows the MRO of the instance's class, so the call reaches `object` when, in the MRO of the
class and of each of its subclasses in the tree, every class after it is a class of the tree that
does not define NAME (neither decorated nor binding NAME other than by `def`) or torch.nn.Module,
which defines only `__repr__` and `__dir__` of them. A mixin's `super().__eq__` reaches the
`__eq__` of the base listed after it (`class Box(Mixin, Base)`), and a class outside the tree may
define it: not reported.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from graphmend_bot.analysis.class_order import ClassId, MethodOrder
from graphmend_bot.vocabulary import known_names as V

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import Program, TracedDraft

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


def object_method_super_calls(program: Program) -> list[TracedDraft]:
    """The drafts of traced `super().NAME(...)` calls whose class leaves NAME to `object`."""
    from graphmend_bot.analysis.scope import TracedDraft

    order = MethodOrder(program)
    found: list[TracedDraft] = []
    for fid in program.traced_in_order():
        function = program.function(fid)
        if not function.super_object_drafts or fid[0] in program.dependency_modules:
            continue
        owner = function.class_qualname
        for method, draft in function.super_object_drafts:
            if owner is not None and owner in program.modules[fid[0]].classes and _leaves_to_object(
                program, order, (fid[0], owner), method
            ):
                found.append(TracedDraft(program.modules[fid[0]], function, draft))
    return found


def _leaves_to_object(program: Program, order: MethodOrder, owner: ClassId, method: str) -> bool:
    """`super()` searches the classes after the owner in the MRO of the instance's class: the
    owner's or a subclass's, where a mixin's `super()` reaches a sibling base (`class
    Box(Mixin, Base)`). It finds `object`'s `method` when, for each, every class after the owner
    is of the tree and does not define it (nn.Module defines some)."""
    from graphmend_bot.analysis.scope import MODULE_BASES

    for instance_class in (owner, *program.hierarchy.descendants(owner)):
        mro = order.of(instance_class)
        if mro is None:
            return False
        for later in mro[mro.index(owner) + 1:]:
            if isinstance(later, str):
                if later in MODULE_BASES and method not in V.NN_MODULE_OBJECT_METHODS:
                    continue
                return False  # a class outside the tree may define it
            summary = program.modules[later[0]].classes[later[1]]
            if method in summary.methods or summary.dunders_unknown:
                return False
    return True
