"""Named tuples a module defines, by their field names: their instances carry what they were
built from (torchdiffeq's `_ButcherTableau(alpha=torch.tensor(...), ...)`, then
`for alpha_i in tableau.alpha: if alpha_i == 1.:` branches on a tensor)."""

from __future__ import annotations

import ast
from collections.abc import Callable

Resolve = Callable[[ast.expr], "str | None"]
_FACTORIES = frozenset({"collections.namedtuple", "typing.NamedTuple"})
_BASES = frozenset({"typing.NamedTuple"})


def factory_fields(value: ast.expr, resolve: Resolve) -> tuple[str, ...] | None:
    """The fields of `collections.namedtuple("T", "a, b")` / `(..., ["a", "b"])` /
    `typing.NamedTuple("T", [("a", int), ...])`; None when `value` is not one or its fields
    are not written out."""
    if not (isinstance(value, ast.Call) and len(value.args) >= 2 and resolve(value.func) in _FACTORIES):
        return None
    spec = value.args[1]
    if isinstance(spec, ast.Constant) and isinstance(spec.value, str):
        return tuple(name for name in spec.value.replace(",", " ").split() if name.isidentifier())
    if isinstance(spec, (ast.List, ast.Tuple)):
        names = [_field_name(element) for element in spec.elts]
        return tuple(name for name in names if name is not None) if all(names) else None
    return None


def class_fields(node: ast.ClassDef, resolve: Resolve) -> tuple[str, ...] | None:
    """The fields of `class T(NamedTuple): a: Tensor` that may hold tensors (not those annotated
    `int`, `float`, `bool` or `str`: `height: int` stays a Python value); None for other classes."""
    if not any(resolve(base) in _BASES for base in node.bases):
        return None
    return tuple(
        statement.target.id
        for statement in node.body
        if isinstance(statement, ast.AnnAssign)
        and isinstance(statement.target, ast.Name)
        and not (isinstance(statement.annotation, ast.Name) and statement.annotation.id in _SCALARS)
    )


_SCALARS = frozenset({"int", "float", "bool", "str"})


def _field_name(element: ast.expr) -> str | None:
    if isinstance(element, ast.Constant) and isinstance(element.value, str):
        return element.value
    if isinstance(element, ast.Tuple) and element.elts and isinstance(element.elts[0], ast.Constant):
        value = element.elts[0].value
        return value if isinstance(value, str) else None
    return None
