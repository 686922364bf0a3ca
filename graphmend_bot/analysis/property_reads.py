"""Which reads of `self.NAME` and `self.held.NAME` run a property of the module's classes: the
`getter:` call sites the scope solver resolves to the getter (function_objects.py records them),
and which of those properties give a list, dict or set (a local bound to `self.NAME` holds one:
a comprehension over it is handed an iterator Dynamo cannot step, skipped_frames.py)."""

from __future__ import annotations

import ast
from collections.abc import Container, Iterable, Mapping

from graphmend_bot.analysis.local_nodes import every_node
from graphmend_bot.analysis.value_class import is_property
from graphmend_bot.vocabulary.dotted_names import dotted_name

_BUILDERS = frozenset({"list", "sorted", "dict", "set"})
_SET_OPERATORS = (ast.BitOr, ast.BitAnd, ast.Sub, ast.BitXor)


def module_properties(functions: Iterable[tuple[str, str | None, ast.FunctionDef | ast.AsyncFunctionDef]]) -> dict[str, bool]:
    """The property names of the module's classes, each with whether it gives a collection: every
    function of that name is a getter whose every `return` builds a list, dict or set."""
    found: dict[str, bool] = {}
    others: set[str] = set()
    for _, class_qualname, node in functions:
        decorators = tuple(filter(None, map(dotted_name, node.decorator_list)))
        if class_qualname is not None and accessor_of_property(node.name, decorators):
            continue  # `@NAME.setter`: the property's, its reads still run the getter
        if class_qualname is None or not is_property(decorators):
            others.add(node.name)
            continue
        found[node.name] = found.get(node.name, True) and _returns_collection(node)
    return {name: gives and name not in others for name, gives in found.items()}


def accessor_of_property(name: str, decorators: tuple[str, ...]) -> bool:
    """`@NAME.setter` / `@NAME.deleter` on a def NAME: the property's other accessor, defined after its getter."""
    return f"{name}.setter" in decorators or f"{name}.deleter" in decorators


def setter_qualname(getter_qualname: str) -> str:
    """The name a property's setter is summarised under (its own `__qualname__` is the getter's)."""
    return f"{getter_qualname}.setter"


def setter_ref(node: ast.Attribute, properties: Container[str], self_name: str | None, env: Container[str]) -> str | None:
    """`setter:self>NAME` for `self.NAME = value` on a property of the module's classes: the store
    runs the setter, which Dynamo inlines (tests/test_property_setters.py)."""
    owner = node.value
    own = isinstance(owner, ast.Name) and owner.id == (self_name or "self") and owner.id not in env
    return f"setter:self>{node.attr}" if own and node.attr in properties else None


def _returns_collection(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    returns = [child for child in every_node(node) if isinstance(child, ast.Return)]
    return bool(returns) and all(child.value is not None and _collection(child.value) for child in returns)


def _collection(value: ast.expr) -> bool:
    """A display or comprehension of a list, dict or set, `list(...)`, `sorted(...)`, `dict(...)`,
    `set(...)`, or a set operation with a set display or comprehension (`keys | {...}`)."""
    if isinstance(value, (ast.List, ast.ListComp, ast.Set, ast.SetComp, ast.Dict, ast.DictComp)):
        return True
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        return value.func.id in _BUILDERS
    if isinstance(value, ast.BinOp) and isinstance(value.op, _SET_OPERATORS):
        return any(isinstance(side, (ast.Set, ast.SetComp)) for side in (value.left, value.right))
    return False


def gives_collection(value: ast.expr, properties: Mapping[str, bool], self_name: str | None, env: Container[str]) -> bool:
    """`self.NAME` reading a property of the module's classes that gives a list, dict or set."""
    return (isinstance(value, ast.Attribute) and properties.get(value.attr, False)
            and getter_ref(value, properties, self_name, env) == f"getter:self>{value.attr}")


def getter_ref(node: ast.Attribute, properties: Container[str], self_name: str | None,
               env: Container[str]) -> str | None:
    """`getter:self>NAME` for `self.NAME`: on the method's own `self`, or on the `self` a closure
    nested in a method closes over (torchmetrics' `wrapped_func` in `_wrap_compute` reads
    `self.update_called`; scope.Program.self_class finds its class). `getter:attr:HELD>NAME` for
    `self.HELD.NAME` on an object the method's class holds: the solver finds the getter through
    what __init__ built there (a cached_property read so breaks as on `self`, GM612)."""
    if node.attr not in properties:
        return None
    owner = node.value
    if isinstance(owner, ast.Name):
        own = owner.id not in env and owner.id == (self_name or "self")
        return f"getter:self>{node.attr}" if own else None
    if isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name):
        holder = owner.value.id
        if holder == (self_name or "self") and holder not in env:
            return f"getter:attr:{owner.attr}>{node.attr}"
    return None
