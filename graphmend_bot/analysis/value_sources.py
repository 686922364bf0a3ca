"""Where a value's kind comes from when nothing local types it.

`getattr(self, "buf")` reads the attribute `self.buf` (a buffer registered under that name, a
parameter): the same module state, so the same kind (measured on torch 2.13: `.item()` on it
breaks as on `self.buf`, tests/test_value_sources.py); with a default the result may be the
default instead, so its kind joins in (`bool(getattr(self, "flag", False))` over a 0-d buffer
breaks as `bool(self.flag)`, GB0124; over a Python attribute or a missing name it traces:
tests/test_self_getattr.py).

`mapping.get(key[, default])` on module state or a local (`self.cfg.get("scale")`) is an element of
it, as `self.cfg["scale"]` is, or the default: its kind is theirs, so `.item()` on it is judged by
what the mapping holds (a NumPy float traces, a tensor breaks: tests/test_value_sources.py), not
taken for a value nothing types.

`self.register_buffer("name", value)` stores a tensor or None (torch takes nothing else): a value
computed in place is a tensor whatever its callee.

`.item()`, `.tolist()`, `.nonzero()`, `.storage_offset()` on a value nothing types (a field of a
returned record `out.loss`, `args[0]`, `kwargs["t"]`, `getattr(self, name)`): a tensor's under Dynamo.

Only a tensor, a NumPy array or scalar, or an object whose class defines `item` has the method
(a Python number, list or dict has none). Measured on torch 2.13 (tests/test_value_sources.py):
Dynamo breaks on it for a tensor and for an array it traces as one (`np.asarray([1., 2.]).sum()`),
not for a NumPy float scalar built from Python values (`np.float32(2.0)`, folded to a constant; an
integer or bool one breaks there with GB0208, and `.tolist()` on any does, neither reported) nor for
an instance of a class in the tree (a local built from one is the caller's `_built_object`; module
state and call results have kinds of their own, decided by the scope solver).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Container

from graphmend_bot.analysis.guards import FunctionNode
from graphmend_bot.analysis.local_nodes import local_nodes
from graphmend_bot.analysis.narrowing import none_test
from graphmend_bot.vocabulary import known_names as V
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind


def read_attribute(node: ast.Call, self_name: str | None, env: Container[str]) -> str | None:
    """The attribute a `getattr(self, "NAME"[, default])` call reads, or None (another object, a
    name not written out, `self` rebound in the body)."""
    if self_name is None or self_name in env or not 2 <= len(node.args) <= 3 or node.keywords:
        return None
    owner, name = node.args[0], node.args[1]
    if not (isinstance(owner, ast.Name) and owner.id == self_name):
        return None
    if isinstance(name, ast.Constant) and isinstance(name.value, str) and name.value.isidentifier():
        return name.value
    return None


def self_getattr_kind(node: ast.Call, self_name: str | None, env: Container[str], args: list[Kind]) -> Kind | None:
    """The kind of `getattr(self, "NAME"[, default])`, or None when the call is not that spelling."""
    name = read_attribute(node, self_name, env)
    if name is None:
        return None
    if name in V.STATIC_ATTRS:
        return NOT_TENSOR
    default = args[2] if len(args) == 3 else NOT_TENSOR
    return Kind.of_param(f"self.{name}") | default


_NUMPY_SCALARS = frozenset({
    "bool_", "byte", "cdouble", "clongdouble", "complex128", "complex64", "csingle", "double", "float16",
    "float32", "float64", "half", "int16", "int32", "int64", "int8", "intc", "intp", "longdouble", "longlong",
    "short", "single", "ubyte", "uint16", "uint32", "uint64", "uint8", "uintc", "uintp", "ulonglong", "ushort",
})


# Methods a value nothing types breaks on as a tensor would: a Python value has none of them, and a
# NumPy array has the first three and breaks the same (measured: `np.asarray([1., 0.]).nonzero()`).
OPAQUE_TENSOR_METHODS = frozenset({"item", "tolist", "nonzero", "storage_offset"})


def opaque_receiver(receiver: ast.expr, resolve: Callable[[ast.expr], str | None]) -> bool:
    """`receiver.item()` (an OPAQUE_TENSOR_METHODS call) where the receiver's kind is empty: it
    holds a tensor unless it is a NumPy scalar built in place (`np.float32(v).item()`) or a constant."""
    if isinstance(receiver, ast.Constant):
        return False
    if isinstance(receiver, ast.Call) and (built := resolve(receiver.func)) is not None:
        module, _, name = built.rpartition(".")
        return not (module == "numpy" and name in _NUMPY_SCALARS)
    return True


def mapping_get(node: ast.Call, func: ast.Attribute, receiver: Kind, args: list[Kind], self_name: str | None,
                typed: Container[str], instances: Container[str]) -> Kind:
    """The kind of `OWNER.get(key[, default])` with OWNER `self.NAME` or a local: an element's (or the
    default's); NOT_TENSOR for any other call, an owner of no kind, or one typed with a class (`typed`:
    attributes of self, `instances`: locals), whose own `get` runs."""
    if func.attr != "get" or node.keywords or not 1 <= len(node.args) <= 2 or not receiver.nonempty:
        return NOT_TENSOR
    owner = func.value
    if isinstance(owner, ast.Name):
        if owner.id == self_name or owner.id in instances:
            return NOT_TENSOR
    elif not (isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name) and owner.value.id == self_name
              and owner.attr not in typed and f"{owner.attr}()" not in typed):  # held_mappings.py
        return NOT_TENSOR
    default = args[1] if len(args) == 2 else NOT_TENSOR
    return receiver.without_flags() | default


def registered_buffer(value: ast.expr, kind: Kind, module_function: Callable[[str], FunctionNode | None] | None = None,
                      function: FunctionNode | None = None) -> Kind:
    """What `self.register_buffer("name", value)` stores. torch takes only a tensor or None there: a value
    computed in place (`filts[0]`, `make(n) * 2`) is a tensor whatever the callee (an untraced `__init__`'s
    calls are never solved), and so is a parameter of `function` with no default still holding what
    the caller passed (`register_buffer("_coeffs", coeffs)`: the object's builder passes a tensor), and a
    name an enclosing `if` proves no None (`if Q is not None: self.register_buffer("_Q", Q)`); another
    name, an attribute, constant, ternary or `or` may hold None and keeps its kind, as does a call of a
    top-level function of the module that returns only None (`module_function`)."""
    computed = not isinstance(value, (ast.Name, ast.Attribute, ast.Constant, ast.IfExp, ast.BoolOp)) or (
        isinstance(value, ast.Name) and function is not None and (
            (kind == Kind.of_param(value.id) and required_parameter(function, value.id))
            or tested_not_none(function, value))
    )
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and module_function is not None:
        helper = module_function(value.func.id)
        computed = helper is None or not returns_only_none(helper)
    return kind | TENSOR if computed else kind


def returns_only_none(function: FunctionNode) -> bool:
    """Whether every `return` of a function's own returns None (`return`, `return None`, or none at all):
    one that returns a tensor on some path may store one (a helper returning None only for `n == 0`)."""
    returns = [node for node in local_nodes(function.body) if isinstance(node, ast.Return)]
    return all(r.value is None or (isinstance(r.value, ast.Constant) and r.value.value is None) for r in returns)


def required_parameter(function: FunctionNode, name: str) -> bool:
    """Whether `name` is a named parameter of `function` without a default (every caller passes it: a
    default, `tail_bound=1.0`, says what it holds when none does)."""
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for arg, default in (*zip(positional, defaults), *zip(args.kwonlyargs, args.kw_defaults)):
        if arg.arg == name:
            return default is None
    return False


def tested_not_none(function: FunctionNode, name: ast.Name) -> bool:
    """Whether the read `name` is in the arm of an `if` of `function` where the name is not None
    (`if q is not None:` or `if q is not None and ...:`, the `else` of `if q is None:`)."""
    for node in local_nodes(function.body):
        if isinstance(node, ast.If):
            tests = node.test.values if isinstance(node.test, ast.BoolOp) and isinstance(node.test.op, ast.And) else [node.test]
            if (name.id, False) in map(none_test, tests):
                arms = node.body
            elif none_test(node.test) == (name.id, True):
                arms = node.orelse
            else:
                continue
            if any(found is name for arm in arms for found in ast.walk(arm)):
                return True
    return False
