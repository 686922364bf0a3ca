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
# Tensor methods and torch functions that return a tuple or list of tensors (never one tensor).
_SEQUENCE_OPS = frozenset({
    "unbind", "chunk", "split", "tensor_split", "hsplit", "vsplit", "dsplit", "split_with_sizes",
    "unsafe_chunk", "unsafe_split",
})
_SEQUENCE_NAMES = _SEQUENCE_OPS | {"meshgrid", "broadcast_tensors"}
_SEQUENCE_FUNCTIONS = frozenset(f"torch.{name}" for name in _SEQUENCE_NAMES)


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
    if last not in _SEQUENCE_NAMES:
        return False
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and last in _SEQUENCE_OPS:
        kind = env.get(func.value.id)
        if kind is not None and kind.is_tensor:
            return True
    return resolve(func) in _SEQUENCE_FUNCTIONS
