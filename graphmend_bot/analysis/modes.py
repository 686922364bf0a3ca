"""The mode a branch runs in, when its test names one: training, a half-precision dtype, autocast,
a CUDA device.

Dynamo specialises on `self.training`, on a tensor's dtype and on autocast being enabled: it
traces only the arm the mode in force takes. A break in `if self.training:` breaks a model
compiled in training mode and never one compiled for eval (measured on torch 2.13:
tests/test_modes.py), so such a finding is right, and its message says the mode
(`... breaks the graph (in training mode)`), as a user measuring in eval would otherwise read
it as a false positive. Read from the test alone: `self.training`, `not ...`, `and`/`or`,
`x.dtype == torch.float16` (`is`, `!=`, `in (...)`), `torch.is_autocast_enabled(...)`, `x.is_cuda`,
`x.device.type == "cuda"`, `torch.cuda.is_available()`. Python
stops `and`/`or` early, so a mode named by any operand holds for the tensors after it
(`self.use_fast and self.training and x.any()`, short_circuit_mode), and a guard clause's mode for
the rest of its block (`if not self.training: return x`, function_statements.py).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext

from graphmend_bot.analysis.local_nodes import every_node
from graphmend_bot.analysis.off_flags import GLOBAL, ON, UNSET
from graphmend_bot.vocabulary.dotted_names import dotted_name
from graphmend_bot.vocabulary.kind import Kind
from graphmend_bot.vocabulary.mode_names import (
    AUTOCAST,
    GRAD_ENABLED,
    INPUT_REQUIRES_GRAD,
    NO_INPUT_REQUIRES_GRAD,
    ON_CUDA,
    TRAINING,
)

_IN, _OR, _AND = "in ", " or ", ", "  # how a dtype mode and a list of modes are spelled
# The dtypes a test picks, by their names in torch.
_HALF_DTYPES = {"float16": "float16", "half": "float16", "bfloat16": "bfloat16"}
_AUTOCAST_TESTS = frozenset({"torch.is_autocast_enabled", "torch.is_autocast_cpu_enabled"})
_CUDA_TESTS = frozenset({"torch.cuda.is_available"})
_FLAG_ON = "when `self.{}` is true"  # a flag its class keeps off by default (off_flags.py)
_FLAG_OFF = "when `self.{}` is false"  # one it keeps on
_SET = "when `self.{}` is not None"  # an attribute it keeps None
_GLOBAL_FLAG_ON = "when `{}` is true"  # a module's switch kept off (off_flags.module_flags)
_FLAG_PATTERN = re.compile(r"when `(?:self\.)?\w+` is (?:true|false|not None)")

Arms = tuple[str | None, str | None]  # (the mode the body runs in, the mode the else arm runs in)


def arm_modes(test: ast.expr, flags: frozenset[str] = frozenset()) -> Arms:
    """The mode each arm of `if test:` runs in, None where it runs in any (`flags`: the attributes
    of `self` its class keeps off by default, off_flags.py)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        body, orelse = arm_modes(test.operand, flags)
        return orelse, body
    if isinstance(test, ast.BoolOp):
        arms = [arm_modes(value, flags) for value in test.values]
        if isinstance(test.op, ast.And):  # the body needs every operand true
            return next((body for body, _ in arms if body), None), None
        return None, next((orelse for _, orelse in arms if orelse), None)  # the else arm: every one false
    if isinstance(test, ast.Attribute):  # no later test is an attribute: its arms are decided here
        if test.attr == "is_cuda":
            return ON_CUDA, None  # `x.is_cuda`, `self.weight.is_cuda`
        if test.attr == "requires_grad" and not _held_by_self(test.value):
            return GRAD_ENABLED, None  # a value computed here requires grad only with grad enabled
        if not isinstance(test.value, ast.Name):
            return None, None
        if test.attr == "training":
            return TRAINING, None  # `self.training`, `module.training`
        if not flags or test.value.id != "self":
            return None, None
        if test.attr in flags:
            return _FLAG_ON.format(test.attr), None
        if ON + test.attr in flags:
            return None, _FLAG_OFF.format(test.attr)
        if UNSET + test.attr in flags:
            return _SET.format(test.attr), None  # `self.mask and ...`: None is false
        return None, None
    if flags and isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot)):
        unset = _unset_attribute(test, flags)
        if unset is not None:  # `self.mask is not None`: true once set; `is None`: the else arm
            return (_SET.format(unset), None) if isinstance(test.ops[0], ast.IsNot) else (None, _SET.format(unset))
    if isinstance(test, ast.Name) and GLOBAL + test.id in flags:
        return _GLOBAL_FLAG_ON.format(test.id), None
    if isinstance(test, ast.Call) and _torch_name(test.func) in _AUTOCAST_TESTS:
        return AUTOCAST, None
    if isinstance(test, ast.Call) and _torch_name(test.func) in _CUDA_TESTS and not test.args:
        return ON_CUDA, None
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        device = _device_test(test)
        if device is not None:
            return (ON_CUDA, None) if device else (None, ON_CUDA)
        dtype = _dtype_test(test)
        if dtype is not None:
            mode, equal = dtype
            return (mode, None) if equal else (None, mode)
    return None, None


def _held_by_self(node: ast.expr) -> bool:
    """`self.weight`: a module's parameter requires grad under `torch.no_grad()` too."""
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _unset_attribute(test: ast.Compare, flags: frozenset[str]) -> str | None:
    """NAME of `self.NAME is [not] None` where the class keeps `self.NAME` None (off_flags.UNSET)."""
    left, right = test.left, test.comparators[0]
    if not (isinstance(right, ast.Constant) and right.value is None):
        return None
    if isinstance(left, ast.Attribute) and isinstance(left.value, ast.Name) and left.value.id == "self" and UNSET + left.attr in flags:
        return left.attr
    return None


def test_mode(test: ast.expr, flags: frozenset[str] = frozenset()) -> str | None:
    """The mode the rest of `test` is evaluated in: `x.dtype == torch.float16 and x.isinf().any()`
    converts the tensor in float16 only (`and` stops at the first false operand; `or` at a true one)."""
    if isinstance(test, ast.BoolOp) and len(test.values) > 1:
        body, orelse = arm_modes(test.values[0], flags)
        return body if isinstance(test.op, ast.And) else orelse
    return None


def short_circuit_mode(
    test: ast.expr, tensors: dict[int, Kind], flags: frozenset[str] = frozenset()
) -> tuple[str, list[Kind]] | None:
    """The mode in which alone `test` reaches its tensor operands (`tensors`: their kinds by node id),
    with the kinds of those before the operand naming it: `self.use_fast and self.training and
    x.any()` reads `x` in training only, as `and` stops at the first false operand (`or` at a true
    one: `not self.training or x.any()`); the mode stands unless the solver finds `self.use_fast` a
    tensor. None when an operand before every one naming a mode is a tensor on every path."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return short_circuit_mode(test.operand, tensors, flags)
    if not isinstance(test, ast.BoolOp):
        return None
    before: list[Kind] = []
    for value in test.values:
        kinds = [tensors[id(node)] for node in every_node(value) if id(node) in tensors]
        if any(kind.always for kind in kinds):
            return None
        body, orelse = arm_modes(value, flags)
        mode = body if isinstance(test.op, ast.And) else orelse
        if mode is not None and not kinds:
            return mode, before
        before += kinds
    return None


def _dtype_test(test: ast.Compare) -> tuple[str, bool] | None:
    """("in float16", True) for `x.dtype == torch.float16` (`is`, `in (torch.float16, ...)`);
    False for `!=`, `is not`, `not in`."""
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if not isinstance(op, (ast.Eq, ast.Is, ast.In, ast.NotEq, ast.IsNot, ast.NotIn)):
        return None
    if not (isinstance(left, ast.Attribute) and left.attr == "dtype"):
        left, right = right, left
        if not (isinstance(left, ast.Attribute) and left.attr == "dtype"):
            return None
    candidates = right.elts if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.Tuple, ast.List, ast.Set)) else [right]
    names = [_HALF_DTYPES.get((_torch_name(candidate) or "").removeprefix("torch.")) for candidate in candidates]
    found = [name for name in names if name is not None]
    if not found or len(found) < len(names):  # a dtype other than these may pass too: any mode
        return None
    mode = _IN + _OR.join(dict.fromkeys(found))
    return mode, isinstance(op, (ast.Eq, ast.Is, ast.In))


def _device_test(test: ast.Compare) -> bool | None:
    """True for `x.device.type == "cuda"` (`in ("cuda",)`), False for `!=` / `not in`, else None."""
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(left, ast.Constant):
        left, right = right, left
    if not (isinstance(left, ast.Attribute) and left.attr == "type" and isinstance(left.value, ast.Attribute)
            and left.value.attr == "device"):
        return None
    if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.Tuple, ast.List, ast.Set)) and len(right.elts) == 1:
        right = right.elts[0]
    if not (isinstance(right, ast.Constant) and right.value == "cuda"):
        return None
    if isinstance(op, (ast.Eq, ast.Is, ast.In)):
        return True
    return False if isinstance(op, (ast.NotEq, ast.IsNot, ast.NotIn)) else None


def _torch_name(node: ast.expr) -> str | None:
    """`torch.NAME` as written (no alias of torch is followed), else None."""
    name = dotted_name(node)
    return name if name is not None and name.startswith("torch.") else None


_NO_MODE = nullcontext()


def entered(modes: list[str], mode: str | None) -> AbstractContextManager[None]:
    """`modes` with `mode` on top while the block runs (nothing when it is None: most of the
    200,000 arms and reports of transformers' summaries, where a generator each was 1% of them)."""
    return _NO_MODE if mode is None else _pushed(modes, mode)


@contextmanager
def _pushed(modes: list[str], mode: str) -> Iterator[None]:
    modes.append(mode)
    try:
        yield
    finally:
        modes.pop()


def named(message: str, modes: list[str]) -> str:
    """The message, saying the modes its line runs in."""
    return f"{message} ({_AND.join(dict.fromkeys(modes))})" if modes else message


def modes_named(message: str) -> list[str]:
    """The modes `named` wrote at the end of a message, [] when it names none: the wild benchmark
    measures Dynamo in eval mode and float32, so it sets apart findings in a mode it did not run."""
    opened = message.rfind(" (")
    if opened < 0 or not message.endswith(")"):
        return []
    written = message[opened + 2 : -1].split(_AND)
    return written if all(_is_mode(mode) for mode in written) else []


def flag_named(mode: str) -> str | None:
    """The attribute a flag mode names (`when `self.check_nans` is true` or `... is false`: "check_nans"), else None."""
    return mode.split("`")[1].removeprefix("self.") if _FLAG_PATTERN.fullmatch(mode) else None


def dtypes_named(mode: str) -> list[str]:
    """The torch dtypes a dtype mode names ("in float16 or bfloat16": float16, bfloat16), else []."""
    dtypes = mode.removeprefix(_IN)
    names = dtypes.split(_OR)
    return names if dtypes != mode and all(name in _HALF_DTYPES.values() for name in names) else []


def _is_mode(text: str) -> bool:
    return (text in (TRAINING, AUTOCAST, GRAD_ENABLED, NO_INPUT_REQUIRES_GRAD, INPUT_REQUIRES_GRAD, ON_CUDA)
            or bool(dtypes_named(text))
            or _FLAG_PATTERN.fullmatch(text) is not None)
