"""Values that are NumPy arrays under TorchDynamo by how they are made, whatever their inputs.

Measured on torch 2.13 (tests/coverage_probes/gb0059_range_of_numpy_value.py): with
`torch._dynamo.config.trace_numpy` (the default) Dynamo runs every `numpy.*` call through
`torch._numpy`, so its result is an `ndarray` backed by a tensor in the graph, even on Python numbers
(`np.prod(x.shape[1:])`, `np.sum([1, 2])`, `np.int64(3)`); only the constant collections (`np.dtype`,
`np.iinfo`, `np.finfo`) and `np.issubdtype` are folded, and `np.ndim`/`np.isscalar`/`np.shape`/`np.size`
answer in Python values (Dynamo breaks at the call: "torch.* op returned non-Tensor", GB0208). Arithmetic and methods on one give one
(`.item()` and `.tolist()` leave the array), and so is a tensor's `.numpy()` (`t.detach().cpu().numpy()`). `np.random.*` draws values, and the calls in the
untraceable table (`np.load`) break at the call already, under their own id: neither is counted.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Set

from graphmend_bot.vocabulary.numpy_results import makes_ndarray

_LEAVE_THE_ARRAY = frozenset({"item", "tolist"})
# Attributes of an array Dynamo answers with an array (NumpyNdarrayVariable.var_getattr)
_ARRAY_ATTRIBUTES = frozenset({"T", "real", "imag", "flat"})


def is_ndarray(node: ast.expr, ndarrays: Set[str], resolve: Callable[[ast.expr], str | None]) -> bool:
    """`node` is a NumPy array under Dynamo; `ndarrays`: locals bound to one."""
    if isinstance(node, ast.Name):
        return node.id in ndarrays
    if isinstance(node, ast.BinOp):
        return is_ndarray(node.left, ndarrays, resolve) or is_ndarray(node.right, ndarrays, resolve)
    if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
        return is_ndarray(node.operand, ndarrays, resolve)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:  # `a > 0`: an array of bools
        return is_ndarray(node.left, ndarrays, resolve) or is_ndarray(node.comparators[0], ndarrays, resolve)
    if isinstance(node, ast.Subscript):  # `a[0]`, `a[1:]`: an element or a slice of an array is one
        return is_ndarray(node.value, ndarrays, resolve)
    if isinstance(node, ast.Attribute) and node.attr in _ARRAY_ATTRIBUTES:  # `a.T`, `a.real`
        return is_ndarray(node.value, ndarrays, resolve)
    if isinstance(node, ast.IfExp):  # `np.ones(n) if c else np.zeros(n)`: an array either way
        return is_ndarray(node.body, ndarrays, resolve) and is_ndarray(node.orelse, ndarrays, resolve)
    if not isinstance(node, ast.Call):
        return False
    name = resolve(node.func)
    if name is not None:
        return makes_ndarray(name)
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "numpy" and not node.args:
        return True  # `t.detach().cpu().numpy()`: a tensor's array under Dynamo too (tests/test_numpy_of_tensor.py)
    return (isinstance(func, ast.Attribute) and func.attr not in _LEAVE_THE_ARRAY
            and is_ndarray(func.value, ndarrays, resolve))

