"""Tensor conditions proven to be bool tensors, for fixes that change how a condition is consumed.

`a and b` on 0-d tensors returns one of its operands, `torch.logical_and(a, b)` a bool tensor: the
same value only when each operand is already bool. `.any()`/`.all()` of a uint8 tensor is uint8
(torch 2.13 keeps that for backward compatibility), so a reduction counts as bool only when its
input is proven bool or floating-point. `torch.where` raises for a float or integer condition
("where expected condition to be a boolean tensor") where `if` took its truth value.

Proven bool: a comparison, a bool predicate (`torch.isnan`, `x.isfinite()`, `torch.logical_*`),
`.bool()`/`.to(torch.bool)`, `&`/`|`/`~`/`not`/`and`/`or` of proven operands, `.any()`/`.all()`
of a proven bool or floating tensor, a local name every assignment of which is proven, and a
parameter annotated `BoolTensor` that the function never rebinds.
"""

from __future__ import annotations

import libcst as cst

from graphmend_bot.rewrite.branching import BOOL_PREDICATES, BOOL_REDUCTIONS, LocalFacts, operand
from graphmend_bot.rewrite.purity import dotted

_BOOL_DTYPES = frozenset({"torch.bool"})


def proven_bool(
    node: cst.BaseExpression,
    facts: LocalFacts,
    floating: set[str] | frozenset[str] = frozenset(),
    _seen: frozenset[str] = frozenset(),
) -> bool:
    """`node` evaluates to a bool tensor (`floating`: local names proven floating-point)."""

    def proven(inner: cst.BaseExpression) -> bool:
        return proven_bool(inner, facts, floating, _seen)

    if isinstance(node, cst.Comparison):
        return True
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.operator, cst.Not | cst.BitInvert) and proven(node.expression)
    if isinstance(node, cst.BooleanOperation):
        return proven(node.left) and proven(node.right)
    if isinstance(node, cst.BinaryOperation):
        return (
            isinstance(node.operator, cst.BitAnd | cst.BitOr | cst.BitXor)
            and proven(node.left)
            and proven(node.right)
        )
    if isinstance(node, cst.Name):
        return _proven_name(node.value, facts, floating, _seen)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        name = node.func.attr.value
        if name in BOOL_PREDICATES or (name == "bool" and not node.args):
            return True
        if name == "to":
            return any(
                dotted(arg.value) in _BOOL_DTYPES
                for arg in node.args
                if arg.keyword is None or arg.keyword.value == "dtype"
            )
        if name in BOOL_REDUCTIONS:
            reduced = reduced_tensor(node)
            return reduced is not None and (
                proven(reduced) or (isinstance(reduced, cst.Name) and reduced.value in floating)
            )
    return False


def reduced_tensor(call: cst.Call) -> cst.BaseExpression | None:
    """What `x.any()` / `torch.any(x)` reduces."""
    if not isinstance(call.func, cst.Attribute):
        return None
    if dotted(call.func) in ("torch.any", "torch.all"):
        return call.args[0].value if call.args and call.args[0].keyword is None else None
    return call.func.value


def is_any_or_all(node: cst.BaseExpression) -> bool:
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in BOOL_REDUCTIONS
    )


def where_condition(
    node: cst.BaseExpression, code: str, facts: LocalFacts, floating: set[str] | frozenset[str]
) -> str:
    """`code` (the lowered `node`) as a `torch.where` condition: `.bool()` added where `node` may
    be a float or integer tensor, taking its truth value as `if` did (NaN and any non-zero are
    true). `torch.logical_*` results are bool, and torch 2.13 accepts the uint8 of `.any()`. The
    operand of `torch.logical_not` gets it too: the rendering selects on it with the arms swapped."""
    negated = "torch.logical_not("
    if (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Not)
        and code.startswith(negated)
    ):
        inner = code[len(negated) : -1]
        return f"{negated}{where_condition(node.expression, inner, facts, floating)})"
    if code.startswith("torch.logical_") or is_any_or_all(node) or proven_bool(node, facts, floating):
        return code
    return f"{operand(node, code)}.bool()"


def _proven_name(
    name: str, facts: LocalFacts, floating: set[str] | frozenset[str], seen: frozenset[str]
) -> bool:
    if name in seen:
        return False
    values = facts.values(name)
    param = facts.params.get(name)
    if param is not None:
        annotation = param.annotation
        if annotation is None or "BoolTensor" not in cst.Module([]).code_for_node(annotation.annotation):
            return False
    elif not values:
        return False
    return all(v is not None and proven_bool(v, facts, floating, seen | {name}) for v in values)
