"""Conditions whose truth is a length, never a tensor's value, though tensors fill them.

`if [x, y]:`, `if (x,):`, `if {"k": x}:`, a comprehension, `if x.chunk(2):` or `torch.split(x, 2)`
test a list, tuple or dict: Python asks its length, which Dynamo knows at trace time, so no tensor
is converted and nothing breaks (measured on torch 2.13: tests/test_length_conditions.py). The kind
solver gives such a value the kind of its elements (a tuple of tensors is a tensor to the rules
that index it), so the condition's test asks here first. A generator is always true.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from graphmend_bot.analysis.function_state import Env

# Values whose truth is their length whatever they hold (a generator is always true).
COLLECTION_DISPLAYS = (ast.Tuple, ast.List, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp)
_DISPLAYS = frozenset({*COLLECTION_DISPLAYS, ast.GeneratorExp})
# Tensor methods and torch functions that return a tuple or list of tensors (never one tensor),
# a named tuple among them (`x.sort()`: values, indices).
_SEQUENCE_OPS = frozenset({
    "unbind", "chunk", "split", "tensor_split", "hsplit", "vsplit", "dsplit", "split_with_sizes",
    "unsafe_chunk", "unsafe_split", "sort", "topk", "kthvalue", "aminmax", "cummax", "cummin", "mode",
    "frexp", "slogdet",
})
# Reductions that return a named tuple (values, indices) when given a dim, else one tensor.
_REDUCTIONS_BY_DIM = frozenset({"max", "min", "median", "nanmedian"})
_SEQUENCE_NAMES = _SEQUENCE_OPS | {"meshgrid", "broadcast_tensors", "var_mean", "std_mean"}
# Names only torch's namespace spells (`Tensor.where` takes the other arm: one tensor).
_FUNCTIONS_ONLY = frozenset({"meshgrid", "broadcast_tensors", "var_mean", "std_mean", "where"})
_TUPLE_BY_ARGUMENTS = _REDUCTIONS_BY_DIM | {"where", "nonzero"}


def length_test(test: ast.expr, env: Env, resolve: Callable[[ast.expr], str | None]) -> bool:
    """Whether `test`'s truth is a length: a display, a comprehension, or a call returning a
    sequence of tensors (a method only on a local tensor: another class's `chunk` may return one).
    Every condition asks: the node's type and the callee's last name decide most at once."""
    if type(test) in _DISPLAYS:
        return True
    if type(test) is not ast.Call:
        return False
    func = test.func
    last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if last not in _SEQUENCE_NAMES and last not in _TUPLE_BY_ARGUMENTS:
        return False
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and last not in _FUNCTIONS_ONLY:
        kind = env.get(func.value.id)
        if kind is not None and kind.is_tensor:  # a method of a local tensor
            return last in _SEQUENCE_OPS or _tuple_by_arguments(test, last, method=True)
    if resolve(func) != f"torch.{last}":
        return False
    return last in _SEQUENCE_NAMES or _tuple_by_arguments(test, last, method=False)


def _tuple_by_arguments(call: ast.Call, last: str | None, method: bool) -> bool:
    """A call that returns a tuple for these arguments: `x.max(1)`, `torch.min(x, dim=0)` (values,
    indices), `torch.where(mask)` (its one-argument form: indices), `x.nonzero(as_tuple=True)`."""
    keywords = {keyword.arg: keyword.value for keyword in call.keywords}
    if last in _REDUCTIONS_BY_DIM:
        if "dim" in keywords:
            return not (isinstance(keywords["dim"], ast.Constant) and keywords["dim"].value is None)
        position = 0 if method else 1
        if len(call.args) <= position:
            return False
        dim = call.args[position]
        # `x.max(other)` is elementwise: only an int literal is surely max's dim
        return last not in ("max", "min") or _int_literal(dim)
    if last == "where":
        return len(call.args) == 1 and not keywords
    if last == "nonzero":
        as_tuple = keywords.get("as_tuple")
        return isinstance(as_tuple, ast.Constant) and as_tuple.value is True
    return False


def _int_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int
