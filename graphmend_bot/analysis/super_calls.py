"""`super().NAME(...)` that reaches `object`'s own NAME, or the `__init__` of a builtin exception,
which Dynamo cannot call (GB0006, GM619); and `super().__init__()` outside `__init__` that reaches
torch.nn.Module's, which Dynamo runs only on a module it is building (GB0162, GM626).

Measured on torch 2.13 (tests/coverage_probes/gb0006_super_object_method.py): through `super()`
Dynamo calls Python functions and a few of `object`'s methods it models, not `object.__eq__`,
`__hash__`, `__repr__`, `__str__`, `__format__` or `__dir__` (slot wrappers and method
descriptors: "Attempted to call a super() attribute that is not a function or method"). `super()`
follows the MRO of the instance's class, so the call reaches `object` when, in the MRO of the
class and of each of its subclasses in the tree, every class after it is a class of the tree that
does not define NAME (neither decorated nor binding NAME other than by `def`) or torch.nn.Module,
which defines only `__repr__` and `__dir__` of them. A mixin's `super().__eq__` reaches the
`__eq__` of the base listed after it (`class Box(Mixin, Base)`), and a class outside the tree may
define it: not reported, except a builtin exception (`class ShapeError(ValueError)`), whose methods
Python fixes: BaseException's `__init__` is a C slot too (measured:
tests/coverage_probes/gb0006_exception_super_init.py), `__str__` and `__repr__` Dynamo models, and
it leaves the others to `object`.

Measured on torch 2.13 too (tests/coverage_probes/gb0006_super_attribute_not_a_function.py,
tests/fixtures/rules/GM619_super_object_method_call.py): `super().NAME(...)` breaks with GB0006 when
the first class after it in the MRO that binds NAME binds no function: a `@property` (its value is
called), a `functools.cached_property`, `lru_cache`/`cache` or `singledispatchmethod` method, a
`functools.partialmethod(...)` or `functools.partial(...)`, or an object (`act = Scale()`, a class's
instance). `@staticmethod`,
`@classmethod` and decorators that return a function trace.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING

from graphmend_bot.analysis.class_order import ClassId, Entry, MethodOrder
from graphmend_bot.analysis.value_class import is_property
from graphmend_bot.vocabulary import known_names as V
from graphmend_bot.vocabulary.dotted_names import dotted_name

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import Program, TracedDraft

READ, PROPERTY_READ = V.SUPER_READ, V.SUPER_PROPERTY_READ
# Decorators whose result is no function (by their last name): Dynamo calls it through `super()`
# only when it is a function, a method, a staticmethod or classmethod of one, or a builtin.
_NOT_FUNCTION_DECORATORS = frozenset({"property", "cached_property", "lru_cache", "cache", "singledispatchmethod"})
_NOT_FUNCTION_FACTORIES = frozenset({"partialmethod", "partial", "property", "cached_property"})
# Bases whose methods are torch.Tensor's: `super().requires_grad_(...)` in a subclass reaches its.
_TENSOR_BASES = frozenset({"torch.Tensor", "torch.nn.Parameter", "torch.nn.parameter.Parameter"})


def not_functions(node: ast.ClassDef) -> tuple[str, ...]:
    """The names a class body binds to something other than a function: a property or a cached,
    dispatching or partial method, or an object built by a class (`act = Scale()`)."""
    names: list[str] = []
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            leaves = [_leaf(decorator.func if isinstance(decorator, ast.Call) else decorator)
                      for decorator in statement.decorator_list]
            if any(leaf in _NOT_FUNCTION_DECORATORS or leaf in ("setter", "getter", "deleter") for leaf in leaves):
                names.append(statement.name)
        elif (isinstance(statement, ast.Assign) and len(statement.targets) == 1
              and isinstance(statement.targets[0], ast.Name) and isinstance(statement.value, ast.Call)):
            leaf = _leaf(statement.value.func)
            if leaf in _NOT_FUNCTION_FACTORIES or (leaf[:1].isupper() and leaf not in ("staticmethod", "classmethod")):
                names.append(statement.targets[0].id)
    return tuple(names)


def _leaf(node: ast.expr) -> str:
    name = dotted_name(node)
    return name.rpartition(".")[2] if name is not None else ""


def dunders_unknown(node: ast.ClassDef) -> bool:
    """A class whose `object` and exception methods are not all `def`s of its body: a decorator
    may write them (`@dataclass`: `__eq__`, `__repr__`), an assignment binds one (`__hash__ =
    Base.__hash__`)."""
    if node.decorator_list:
        return True
    for statement in node.body:
        targets = (
            statement.targets if isinstance(statement, ast.Assign)
            else [statement.target] if isinstance(statement, ast.AnnAssign) else []
        )
        if any(isinstance(t, ast.Name) and t.id in V.SUPER_METHODS_NOT_CALLABLE for t in targets):
            return True
    return False


def object_method_super_calls(program: Program) -> list[TracedDraft]:
    """The drafts of traced `super().NAME(...)` calls whose class leaves NAME to `object` or to a
    builtin exception."""
    from graphmend_bot.analysis.scope import TracedDraft

    order = MethodOrder(program)
    found: list[TracedDraft] = []
    for fid in program.traced_in_order():
        function = program.function(fid)
        if not function.super_object_drafts or fid[0] in program.dependency_modules:
            continue
        owner = function.class_qualname
        for method, draft in function.super_object_drafts:
            if owner is None or owner not in program.modules[fid[0]].classes:
                continue
            if method.startswith(READ):
                if _reaches_property(program, order, (fid[0], owner), method[len(READ):]):
                    found.append(TracedDraft(program.modules[fid[0]], function, draft))
            elif (_reaches_c_method(program, order, (fid[0], owner), method)
                  or _reaches_no_function(program, order, (fid[0], owner), method)):
                found.append(TracedDraft(program.modules[fid[0]], function, draft))
    return found


def _reaches_c_method(program: Program, order: MethodOrder, owner: ClassId, method: str) -> bool:
    """`super()` searches the classes after the owner in the MRO of the instance's class: the
    owner's or a subclass's, where a mixin's `super()` reaches a sibling base (`class
    Box(Mixin, Base)`). True when, for each, the search ends at a method Dynamo cannot call."""
    for instance_class in (owner, *program.hierarchy.descendants(owner)):
        mro = order.of(instance_class)
        if mro is None or not _search_ends_in_c(program, mro[mro.index(owner) + 1:], method):
            return False
    return True


def _reaches_no_function(program: Program, order: MethodOrder, owner: ClassId, method: str) -> bool:
    """For the owner and each subclass of the tree, the first class after the owner in its MRO
    that binds `method` is of the tree and binds no function there (`not_functions`)."""
    return all(binder is not None and method in program.modules[binder[0]].classes[binder[1]].not_functions
               for binder in _binders(program, order, owner, method))


def _reaches_property(program: Program, order: MethodOrder, owner: ClassId, name: str) -> bool:
    """For the owner and each subclass of the tree, the first class after the owner in its MRO that
    binds `name` is of the tree and binds it with `@property` (measured on torch 2.13: Dynamo reads
    the property object through `super()`, tests/coverage_probes/gb0088_super_property_read.py)."""
    for binder in _binders(program, order, owner, name):
        getter = None if binder is None else program.class_method(binder[0], binder[1], name)
        if getter is None or not is_property(program.function(getter).decorators):
            return False
    return True


def _binders(program: Program, order: MethodOrder, owner: ClassId, name: str) -> Iterator[ClassId | None]:
    """Per instance class (the owner, each subclass of the tree), the first class of the tree after
    the owner in its MRO that binds `name`; None where the MRO is unknown or a class outside the tree
    comes first."""
    for instance_class in (owner, *program.hierarchy.descendants(owner)):
        mro = order.of(instance_class)
        if mro is None:
            yield None
            continue
        binder = next((later for later in mro[mro.index(owner) + 1:] if isinstance(later, str) or _binds(
            program, later, name)), None)
        yield None if binder is None or isinstance(binder, str) else binder


def _binds(program: Program, cls: ClassId, method: str) -> bool:
    summary = program.modules[cls[0]].classes[cls[1]]
    return method in summary.methods or method in summary.not_functions


def _search_ends_in_c(program: Program, later_classes: tuple[Entry, ...], method: str) -> bool:
    """Every class searched is of the tree and does not define `method` (nn.Module defines some),
    up to `object` or a builtin exception, whose `method` is then a C slot Dynamo cannot call."""
    from graphmend_bot.analysis.scope import MODULE_BASES

    for later in later_classes:
        if method == V.MODULE_REINIT:  # the first `__init__` found is nn.Module's
            if isinstance(later, str):
                return later in MODULE_BASES
            found = program.modules[later[0]].classes[later[1]]
            if "__init__" in found.methods or found.dunders_unknown:
                return False
            continue
        if isinstance(later, str):
            if later in MODULE_BASES and method in V.OBJECT_METHODS_NOT_VIA_SUPER - V.NN_MODULE_OBJECT_METHODS:
                continue
            if later in _TENSOR_BASES:  # a tensor subclass's `super().requires_grad_(mode)` (GM701)
                return method in V.TENSOR_METHODS_REFUSED_VIA_SUPER
            return later.removeprefix("builtins.") in V.BUILTIN_EXCEPTIONS and method in V.EXCEPTION_METHODS_NOT_VIA_SUPER
        summary = program.modules[later[0]].classes[later[1]]
        if method in summary.methods or summary.dunders_unknown:
            return False
    return method in V.OBJECT_METHODS_NOT_VIA_SUPER
