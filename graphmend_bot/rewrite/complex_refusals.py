"""Operations that raise for a complex tensor, in an `and`/`or` operand Python skipped (review16 #3).

`(x > 0).any() or (y > 2).all()` never compares `y` where some `x` is positive; `|` does, and for
a complex `y` that raises ('"gt_cpu" not implemented for \'ComplexFloat\''). Measured on torch
2.13: ordering comparisons, `%` and `//`, and the calls in COMPLEX_REFUSING raise for complex
tensors; `abs()`, `float()`, `==`, `sum()`, `exp()` do not. Such an operation in a skipped operand
is proven unable to raise only when each tensor it reads is proven real:

- a number, a comparison, or a value from a call that gives real values (`abs()`, `float()`,
  `.real`), or from one that refuses complex input (it raised already otherwise);
- dtype-preserving arithmetic, elementwise functions and reductions of real values;
- a name the operand Python always evaluates already orders (`x` in `(x > 0).all()`: a complex
  `x` raises there first, before and after the rewrite), or a local assigned a real value.

A parameter annotated `torch.Tensor` may still be complex: that is an assumption, stated.
"""

from __future__ import annotations

import libcst as cst

from graphmend_bot.rewrite.context import FixContext
from graphmend_bot.rewrite.dtype_facts import reaching_assignment
from graphmend_bot.rewrite.purity import ELEMENTWISE, REDUCTIONS, dotted

# Methods and torch functions that raise for complex input (each measured, or the same kernel
# family as one measured: `amin` beside `amax`, `lt` beside `gt`).
COMPLEX_REFUSING = frozenset({
    "gt", "ge", "lt", "le", "greater", "greater_equal", "less", "less_equal",
    "clamp", "clamp_min", "clamp_max", "clip", "relu", "max", "min", "amax", "amin", "maximum", "minimum",
    "sort", "argmax", "argmin", "topk", "median", "cummax", "cummin",
    "floor", "ceil", "round", "trunc", "sign", "remainder",
})  # fmt: skip
# Calls whose result is real whatever the input's dtype (`abs()` of a complex tensor is its modulus).
REAL_RESULTS = frozenset({
    "abs", "float", "double", "half", "bfloat16", "bool", "long", "int", "angle",
    "isnan", "isfinite", "isinf", "eq", "ne", "numel", "dim",
})  # fmt: skip
_ORDERING = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)
_REFUSING_OPERATORS = (cst.Modulo, cst.FloorDivide)
_TORCH_PREFIXES = ("torch.", "torch.nn.functional.", "F.")


class RealOperands:
    """Which complex-refusing operations of a skipped operand read a tensor not proven real."""

    def __init__(self, ctx: FixContext, first: cst.BaseExpression, statement: cst.CSTNode | None) -> None:
        """`first`: the operand Python always evaluates; `statement`: the one holding the condition."""
        self.ctx = ctx
        self.statement = statement
        # reads `first` orders: a complex one raises there already, before and after the rewrite
        self.ordered = {leaf for _, operand in _refusing_sites(first) for leaf in _flowing_leaves(operand)}

    def risks(self, node: cst.BaseExpression) -> list[str]:
        """Each complex-refusing operation under `node` with an operand not proven real."""
        return [
            f"`{self._code(site)}` raises if `{self._code(operand)}` is a complex tensor"
            for site, operand in _refusing_sites(node)
            if not self._real(operand, frozenset())
        ]

    def _code(self, node: cst.CSTNode) -> str:
        return self.ctx.code_for(node).strip()

    def _real(self, node: cst.BaseExpression, seen: frozenset[str]) -> bool:
        """`node`'s value is a real number or tensor (or computing it raises already)."""
        if isinstance(node, cst.Integer | cst.Float | cst.Comparison | cst.BooleanOperation):
            return True
        if isinstance(node, cst.UnaryOperation):
            return isinstance(node.operator, cst.Not) or self._real(node.expression, seen)
        if isinstance(node, cst.BinaryOperation):
            return self._real(node.left, seen) and self._real(node.right, seen)
        if isinstance(node, cst.Subscript):
            return self._real(node.value, seen)
        if isinstance(node, cst.Attribute) and node.attr.value in ("real", "imag"):
            return True
        name = dotted(node)
        if name is not None and name in self.ordered:
            return True
        if isinstance(node, cst.Name):
            if node.value in seen or self.statement is None:
                return False
            value = reaching_assignment(self.ctx, node.value, self.statement)
            return value is not None and self._real(value, seen | {node.value})
        if isinstance(node, cst.Call):
            called = _called(node)
            if called in REAL_RESULTS or called in COMPLEX_REFUSING:
                return True
            if called in ELEMENTWISE or called in REDUCTIONS:
                inputs = _inputs(node)
                return bool(inputs) and all(self._real(value, seen) for value in inputs)
        return False


def _refusing_sites(node: cst.BaseExpression) -> list[tuple[cst.CSTNode, cst.BaseExpression]]:
    """Each operation under `node` that raises for complex input, with each operand it reads."""
    sites: list[tuple[cst.CSTNode, cst.BaseExpression]] = []
    pending: list[cst.CSTNode] = [node]
    while pending:
        part = pending.pop()
        operands: list[cst.BaseExpression] = []
        if isinstance(part, cst.Comparison):
            sides = [part.left, *(c.comparator for c in part.comparisons)]
            if any(isinstance(c.operator, _ORDERING) for c in part.comparisons):
                operands = sides
            pending.extend(sides)
        elif isinstance(part, cst.BinaryOperation):
            if isinstance(part.operator, _REFUSING_OPERATORS):
                operands = [part.left, part.right]
            pending.extend([part.left, part.right])
        elif isinstance(part, cst.UnaryOperation | cst.BooleanOperation):
            pending.extend(part.children)
        elif isinstance(part, cst.Call):
            inputs = _inputs(part)
            if _called(part) in COMPLEX_REFUSING:
                operands = inputs[:1] if _method(part) else inputs[:2]  # `y.clamp(0)`, `torch.maximum(a, b)`
            pending.extend(inputs)
        elif isinstance(part, cst.Subscript):
            pending.append(part.value)
        sites.extend((part, operand) for operand in operands)
    return sites


def _called(call: cst.Call) -> str | None:
    """The method's or torch function's name (`clamp` for `y.clamp(...)` and `torch.clamp(y)`)."""
    if isinstance(call.func, cst.Attribute):
        return call.func.attr.value
    return None


def _method(call: cst.Call) -> bool:
    """A tensor method (`y.clamp(0)`), not a torch function (`torch.clamp(y, 0)`)."""
    return isinstance(call.func, cst.Attribute) and not _torch(call.func)


def _inputs(call: cst.Call) -> list[cst.BaseExpression]:
    """What a call reads positionally: a method's receiver first."""
    receiver = [call.func.value] if isinstance(call.func, cst.Attribute) and _method(call) else []
    return [*receiver, *(arg.value for arg in call.args if arg.keyword is None)]


def _torch(func: cst.BaseExpression) -> bool:
    name = dotted(func)
    return name is not None and name.startswith(_TORCH_PREFIXES)


def _flowing_leaves(node: cst.BaseExpression) -> set[str]:
    """The names whose dtype `node`'s value keeps (through arithmetic, indexing and dtype-preserving
    calls): a complex one makes `node` complex."""
    found: set[str] = set()
    pending: list[cst.BaseExpression] = [node]
    while pending:
        part = pending.pop()
        name = dotted(part)
        if name is not None and not _torch(part):
            found.add(name)
        elif isinstance(part, cst.BinaryOperation):
            pending.extend([part.left, part.right])
        elif isinstance(part, cst.UnaryOperation) and not isinstance(part.operator, cst.Not):
            pending.append(part.expression)
        elif isinstance(part, cst.Subscript):
            pending.append(part.value)
        elif isinstance(part, cst.Call) and _called(part) in (ELEMENTWISE | REDUCTIONS) - REAL_RESULTS:
            pending.extend(_inputs(part))
    return found
