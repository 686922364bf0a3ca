"""Values that are 0-d tensors by how they are made, whatever the rank of their source.

Kinds say only whether a value is a tensor; indexing needs its rank. Measured on torch 2.13
(tests/fixtures/rules/flow_scalar_index.py): `x[i]` with a 0-d integer tensor `i` converts it to a
Python int ("Data dependent operator", `aten._local_scalar_dense`), also inside a tuple index
(`x[0, i]`, `x[:, i]`) and after `i + 1`; a 1-d index tensor is advanced indexing and traces
(`x[idx.nonzero(as_tuple=True)[0]]`), and so does `argmax(dim, keepdim=True)`. Slice bounds are
GM302's other check. What is 0-d here: an element of an element of `nonzero(as_tuple=True)` or
one-argument `torch.where` (each element is 1-d), `argmax()`/`argmin()` and `sum()`/`max()`/`min()`
with no arguments, and `+ - * // %` of those with ints.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Set

_NO_ARGUMENT_SCALARS = frozenset({"argmax", "argmin", "sum", "max", "min"})
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)


def is_scalar(node: ast.expr, scalars: Set[str], resolve: Callable[[ast.expr], str | None]) -> bool:
    """`node` is a 0-d tensor (when it is a tensor at all); `scalars`: locals bound to one."""
    if isinstance(node, ast.Name):
        return node.id in scalars
    if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
        left = is_scalar(node.left, scalars, resolve)
        right = is_scalar(node.right, scalars, resolve)
        return (left and (right or _int(node.right))) or (right and _int(node.left))
    if isinstance(node, ast.Subscript) and _int(node.slice) and isinstance(node.value, ast.Subscript):
        return _int(node.value.slice) and _one_dimensional_tuple(node.value.value, resolve)
    if isinstance(node, ast.Call) and not node.keywords:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _NO_ARGUMENT_SCALARS and not node.args:
            return resolve(func) is None  # a method, not `torch.max(...)` read as an attribute chain
        return resolve(func) in ("torch.argmax", "torch.argmin") and len(node.args) == 1
    return False


def _int(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def _one_dimensional_tuple(node: ast.expr, resolve: Callable[[ast.expr], str | None]) -> bool:
    """`t.nonzero(as_tuple=True)`, `torch.nonzero(t, as_tuple=True)`, `torch.where(cond)`."""
    if not isinstance(node, ast.Call):
        return False
    as_tuple = any(
        kw.arg == "as_tuple" and isinstance(kw.value, ast.Constant) and kw.value.value is True for kw in node.keywords
    )
    name = resolve(node.func)
    if name == "torch.where":
        return len(node.args) == 1 and not node.keywords
    if name == "torch.nonzero":
        return as_tuple
    return name is None and isinstance(node.func, ast.Attribute) and node.func.attr == "nonzero" and as_tuple
