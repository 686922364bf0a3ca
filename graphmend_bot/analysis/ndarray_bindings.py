"""Locals an assignment binds to a NumPy array under Dynamo beyond `name = <array>` (numpy_values.py),
and parameters annotated as one.

Measured on torch 2.13 (tests/test_ndarray_bindings.py, each read of `.dtype` then breaking with
GB0157): `a, b = np.ones(3), np.zeros(3)` binds both; `a += 1` on an array keeps one; `a: np.ndarray =
np.ones(3)` is one; and so is a parameter annotated `np.ndarray` (`Optional` too) or `npt.NDArray[...]`,
given an array: Dynamo runs NumPy code on arrays it gets from outside through torch._numpy as well.
Judged before the targets are bound again, on what the value was then.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Set

from graphmend_bot.analysis.numpy_values import is_ndarray
from graphmend_bot.analysis.value_class import without_optional

_ARRAY_TYPES = frozenset({"numpy.ndarray", "numpy.typing.NDArray"})


def bound(node: ast.Assign | ast.AnnAssign | ast.AugAssign, ndarrays: Set[str],
          resolve: Callable[[ast.expr], str | None]) -> list[str]:
    """The names `node` binds to an array, judged on the locals known to be arrays before it."""
    if isinstance(node, ast.AugAssign):  # `a += 1`: an array's operator gives an array
        name = node.target.id if isinstance(node.target, ast.Name) else None
        return [name] if name is not None and name in ndarrays else []
    if node.value is None:
        return []
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    found: list[str] = []
    for target in targets:
        if isinstance(target, ast.Name) and is_ndarray(node.value, ndarrays, resolve):
            found.append(target.id)
        elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple) and len(target.elts) == len(node.value.elts):
            found.extend(element.id for element, value in zip(target.elts, node.value.elts)
                         if isinstance(element, ast.Name) and is_ndarray(value, ndarrays, resolve))
    return found


def annotated_array(annotation: ast.expr | None, resolve: Callable[[ast.expr], str | None]) -> bool:
    """`a: np.ndarray`, `a: Optional[np.ndarray]`, `a: npt.NDArray[np.float32]`."""
    if annotation is None:
        return False
    plain = without_optional(annotation)
    if isinstance(plain, ast.Subscript):
        plain = plain.value
    return resolve(plain) in _ARRAY_TYPES
