"""Elementwise operators that raise for some operand dtypes, and what a `torch.where` over them assumes.

`torch.where(c, A, B)` evaluates both arms. An arm whose operator raises for the dtype of its
operand (`x - 1` on a bool tensor, `F.gelu(x)` on an integer one) then raises on the path where the
branch took the other arm and never ran it. Measured on torch 2.13 (tests/rewrite/test_partial_operators.py):
`-` (binary or unary) raises RuntimeError when either operand is a bool tensor, as do the functions
in RAISE_ON_BOOL; those in RAISE_ON_INTEGER raise for bool and integer tensors alike; `**` only
when both operands are bool. Arms that fail for the same dtypes fail on every path already, as the
branch did, so only a difference between arms makes an assumption: that the operands are not of
the failing dtype (the fix is then unsafe and says so).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import libcst as cst

# Categories, as purity.py orders them (imported from there would be circular).
BOOL, INT = 1, 2

RAISE_ON_BOOL = frozenset({
    "-", "sub", "subtract", "neg", "negative", "positive", "abs", "ceil", "floor", "round", "trunc",
    "relu", "relu6", "hardtanh", "softsign", "tanhshrink",
})  # fmt: skip
RAISE_ON_INTEGER = frozenset({
    "gelu", "silu", "mish", "elu", "selu", "celu", "softplus", "logsigmoid", "hardsigmoid",
    "hardswish", "leaky_relu", "frac", "lerp",
})  # fmt: skip
BOTH_BOOL = frozenset({"**", "pow"})
FLOAT_MARKERS = ("float", "half", "double", "complex")

# (operator, the leaves of its operands that may have the failing dtype, the highest category it fails for)
Partial = tuple[str, frozenset[str], int]


class Operand(Protocol):
    @property
    def leaves(self) -> frozenset[str]: ...
    @property
    def category(self) -> int: ...
    @property
    def fixed(self) -> frozenset[str]: ...


def partial_use(operator: str, operands: Sequence[Operand]) -> Partial | None:
    """The entry for `operator` applied to `operands` when some operand may be of a dtype it raises
    for; None when none can be (a Python number of a higher kind in it, a float conversion)."""
    if operator in RAISE_ON_INTEGER:
        kind = INT
    elif operator in RAISE_ON_BOOL or operator in BOTH_BOOL:
        kind = BOOL
    else:
        return None
    exposed = [o for o in operands if _may_be(o, kind)]
    if not exposed or (operator in BOTH_BOOL and len(exposed) < len(operands)):
        return None
    return operator, frozenset().union(*(o.leaves for o in exposed)), kind


def _may_be(operand: Operand, kind: int) -> bool:
    """Whether a tensor operand may be bool (kind BOOL) or integer or bool (kind INT)."""
    if not operand.leaves or operand.category > kind:
        return False
    if any(marker in fixed for fixed in operand.fixed for marker in FLOAT_MARKERS):
        return False
    return kind == INT or operand.fixed <= {"<bool>"}


def failing_kind(partials: frozenset[Partial], known_float: set[str] | frozenset[str]) -> int:
    """The highest category an arm raises for (0: none), leaves proven floating-point left out."""
    return max((kind for _, leaves, kind in partials if leaves - known_float), default=0)


def partial_assumption(
    arms: Sequence[tuple[str, frozenset[Partial]]], known_float: set[str] | frozenset[str]
) -> str | None:
    """The assumption a selection over `arms` ((code, partial uses) each) makes, or None when every
    arm raises for the same dtypes of the same tensors (then the branch raised on every path as well).
    The same dtypes of other tensors is no such proof: `x.abs() + y` against `x + y.abs()` raises
    for a bool `y` on the path that never took `y.abs()`."""
    exposures = [_exposed(partials, known_float) for _, partials in arms]
    differing = frozenset().union(*exposures) - frozenset.intersection(*exposures)
    if not differing:
        return None
    kind = max(k for _, k in differing)
    failing = sorted({op for _, partials in arms for op, leaves, k in partials
                      if k == kind and any((leaf, k) in differing for leaf in leaves)})
    names = sorted({leaf for leaf, k in differing if k == kind})
    return _text(failing, names, kind)


def _exposed(partials: frozenset[Partial], known_float: set[str] | frozenset[str]) -> frozenset[tuple[str, int]]:
    """(leaf, the category it raises for) of every operand an arm's partial operators may fail on."""
    return frozenset((leaf, kind) for _, leaves, kind in partials for leaf in leaves - known_float)


def hoisted_assumption(
    name: str, partials: frozenset[Partial], known_float: set[str] | frozenset[str]
) -> str | None:
    """The assumption computing `name` on every path makes (a tail hoisted above early returns)."""
    kind = failing_kind(partials, known_float)
    if not kind:
        return None
    failing = sorted({op for op, leaves, k in partials if k == kind and leaves - known_float})
    names = sorted({leaf for _, leaves, k in partials if k == kind for leaf in leaves - known_float})
    return f"computes `{name}` on every path; " + _text(failing, names, kind)


def _text(failing: list[str], names: list[str], kind: int) -> str:
    one = len(names) == 1
    if kind == BOOL:
        dtype, raises_on = ("is not a bool tensor" if one else "are not bool tensors"), "bool tensors"
    else:
        dtype, raises_on = (
            ("is a floating-point tensor" if one else "are floating-point tensors"),
            "integer and bool tensors",
        )
    ops = ", ".join(f"`{op}`" for op in failing)
    leaves = ", ".join(f"`{name}`" for name in names)
    return (
        f"assumes {leaves} {dtype}: {ops} raises on {raises_on}, and torch.where evaluates the arm "
        "the branch did not take"
    )


def skipped_operand_operators(node: cst.BaseExpression) -> list[str]:
    """The operators in an `and`/`or` operand that raise for some operand dtype (`x - 1`, `y.abs()`):
    `&`/`|` evaluate the operand where the short circuit skipped it. Read from the text alone (the
    operand holds reductions, which the arm analysis does not take)."""
    found: set[str] = set()
    for child in _nodes(node):
        if isinstance(child, cst.BinaryOperation) and isinstance(child.operator, cst.Subtract):
            found.add("-")
        elif isinstance(child, cst.UnaryOperation) and isinstance(child.operator, cst.Minus):
            if not isinstance(child.expression, cst.Integer | cst.Float):
                found.add("-")
        elif isinstance(child, cst.Call) and isinstance(child.func, cst.Attribute | cst.Name):
            name = child.func.attr.value if isinstance(child.func, cst.Attribute) else child.func.value
            if name in RAISE_ON_BOOL or name in RAISE_ON_INTEGER:
                found.add(name)
    return sorted(found)


def _nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    found = [node]
    for child in node.children:
        found += _nodes(child)
    return found
