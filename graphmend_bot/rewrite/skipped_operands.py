"""Whether an `and`/`or` operand Python skipped can raise once `&`/`|` evaluate it (review15 #2).

`ok = (x > 0).all() or (y.sum() > 0)` never reads `y` where every `x` is positive: a caller may
pass `y=None` there. `torch.logical_or` (or `|`) evaluates both operands, so the rewrite raises
where the original did not. An operand is proven unable to raise when every tensor it reads is
proven one where the condition runs and its elementwise parts combine one tensor only:

- a tensor read is proven when the operand Python always evaluates (the first) reads it too, when
  it is a local name whose assignment reaching the condition computes a tensor (a torch function,
  a tensor method, arithmetic or a comparison on a proven tensor: `h = x.float()`), or when it is
  a parameter annotated as a tensor, not Optional, without a `None` default and never rebound;
- `y + z` under a reduction broadcasts two tensors, which raises for mismatched shapes
  ("The size of tensor a (2) must match the size of tensor b (3)"); several 0-d results combine;
- `t ** e` raises for an integer tensor and a negative integer exponent ("Integers to negative
  integer powers are not allowed"), so only a non-negative integer or a float literal exponent;
- an ordering comparison, `clamp`, `max`/`min` and the like raise for a complex tensor: each
  tensor they read must be proven real (complex_refusals.py).

Reductions that fail for some dtypes or sizes (`branching.failing_reductions`) and operators that
raise for bool tensors (`partial_operators.skipped_operand_operators`) have their own notes.
"""

from __future__ import annotations

import libcst as cst

from graphmend_bot.rewrite.branching import LocalFacts, is_python_number
from graphmend_bot.rewrite.complex_refusals import RealOperands
from graphmend_bot.rewrite.context import FixContext
from graphmend_bot.rewrite.dtype_facts import reaching_assignment
from graphmend_bot.rewrite.purity import (
    CONSTANT_FACTORIES,
    ELEMENTWISE,
    FIXED_DTYPE_METHODS,
    REDUCTIONS,
    dotted,
)
from graphmend_bot.rewrite.well_typed import TENSOR_ANNOTATION

# Methods whose result, once computed, is a tensor (a Python number or None has none of them).
TENSOR_METHODS = ELEMENTWISE | REDUCTIONS | frozenset(FIXED_DTYPE_METHODS) | frozenset({
    "to", "type_as", "view", "reshape", "flatten", "squeeze", "unsqueeze", "transpose", "permute",
    "expand", "expand_as", "long", "int", "masked_fill", "softmax", "log_softmax", "cumsum",
})  # fmt: skip
# torch functions that return a tensor, whatever their arguments.
TENSOR_FUNCTIONS = ELEMENTWISE | frozenset({
    "zeros", "ones", "full", "empty", "rand", "randn", "randint", "arange", "linspace", "tensor",
    "as_tensor", "zeros_like", "ones_like", "full_like", "empty_like", "rand_like", "randn_like",
    "stack", "cat", "matmul", "einsum", "softmax", "log_softmax", "cumsum",
})  # fmt: skip
TORCH_PREFIXES = ("torch.", "torch.nn.functional.", "F.")


class SkippedOperand:
    """Why evaluating an operand of a condition's `and`/`or` may raise where Python skipped it."""

    def __init__(self, ctx: FixContext, facts: LocalFacts, first: cst.BaseExpression) -> None:
        """`first`: the operand Python always evaluates (its reads are proven to exist)."""
        self.ctx = ctx
        self.facts = facts
        self.scalars = facts.python_scalars()
        self.evaluated = _reads(first)
        self.statement = _statement_of(ctx, first)
        self.real = RealOperands(ctx, first, self.statement)
        self.reasons: list[str] = []
        self.unproven: list[str] = []  # reads not proven to exist and hold a tensor

    def risks(self, node: cst.BaseExpression) -> list[str]:
        """The reasons `node` may raise (empty when proven not to)."""
        self.reasons, self.unproven = [], []
        self._scalar(node)
        if self.unproven:
            leaves = ", ".join(f"`{leaf}`" for leaf in dict.fromkeys(self.unproven))
            self.reasons.insert(0, f"{leaves} may be None or not a tensor: only a skipped operand reads it")
        self.reasons.extend(self.real.risks(node))
        return list(dict.fromkeys(self.reasons))

    def _code(self, node: cst.CSTNode) -> str:
        return self.ctx.code_for(node).strip()

    def _scalar(self, node: cst.BaseExpression) -> None:
        """A 0-d value: combining several of them never broadcasts."""
        if isinstance(node, cst.BooleanOperation):
            self._scalar(node.left)
            self._scalar(node.right)
        elif isinstance(node, cst.UnaryOperation):
            self._scalar(node.expression)
        elif isinstance(node, cst.Comparison):
            for part in (node.left, *(c.comparator for c in node.comparisons)):
                self._scalar(part)
        elif isinstance(node, cst.BinaryOperation):
            self._power(node)
            self._scalar(node.left)
            self._scalar(node.right)
        elif isinstance(node, cst.Call):
            inputs = [arg.value for arg in node.args]
            if isinstance(node.func, cst.Attribute) and not _torch_function(node.func):
                inputs.insert(0, node.func.value)  # `x.any()` reduces its receiver
            for value in inputs:
                self._elementwise(value)
        elif not isinstance(node, cst.Integer | cst.Float):
            self._leaf(node)

    def _elementwise(self, node: cst.BaseExpression) -> None:
        """What a reduction reads: it broadcasts its tensors against each other."""
        leaves: list[str] = []

        def visit(part: cst.BaseExpression) -> None:
            if isinstance(part, cst.Call):
                if dotted(part.func) in CONSTANT_FACTORIES:
                    return  # `torch.tensor(1.0)`: a 0-d constant broadcasts against anything
                if isinstance(part.func, cst.Attribute) and not _torch_function(part.func):
                    visit(part.func.value)
                for arg in part.args:
                    visit(arg.value)
            elif isinstance(part, cst.BinaryOperation):
                self._power(part)
                visit(part.left)
                visit(part.right)
            elif isinstance(part, cst.UnaryOperation):
                visit(part.expression)
            elif isinstance(part, cst.Comparison):
                for side in (part.left, *(c.comparator for c in part.comparisons)):
                    visit(side)
            elif not isinstance(part, cst.Integer | cst.Float) and not self._number(part):
                self._leaf(part)
                leaves.append(self._code(part))

        visit(node)
        distinct = list(dict.fromkeys(leaves))
        if len(distinct) > 1:
            self.reasons.append(
                f"`{self._code(node)}` broadcasts {' against '.join(f'`{leaf}`' for leaf in distinct)}"
            )

    def _power(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.Power) and not _safe_exponent(node.right):
            self.reasons.append(
                f"`{self._code(node)}` raises for an integer tensor and a negative integer exponent"
            )

    def _number(self, node: cst.BaseExpression) -> bool:
        return is_python_number(node, self.scalars)

    def _leaf(self, node: cst.BaseExpression) -> None:
        """A name or attribute read: proven to exist and hold a tensor (or a Python number)."""
        name = dotted(node)
        if name is not None and (name in self.evaluated or self._number(node)):
            return
        if isinstance(node, cst.Name) and self._proven_name(node.value, self.statement, frozenset()):
            return
        self.unproven.append(name if name is not None else self._code(node))

    def _proven_name(self, name: str, statement: cst.CSTNode | None, seen: frozenset[str]) -> bool:
        if name in seen:
            return False
        param = self.facts.params.get(name)
        if param is not None:
            return name not in self.facts.assignments and _tensor_parameter(self.ctx, param)
        value = reaching_assignment(self.ctx, name, statement) if statement is not None else None
        return value is not None and self._tensor_value(value, _statement_of(self.ctx, value), seen | {name})

    def _tensor_value(
        self, node: cst.BaseExpression, statement: cst.CSTNode | None, seen: frozenset[str]
    ) -> bool:
        """`node`, once computed, is a tensor."""
        if isinstance(node, cst.Name):
            return self._proven_name(node.value, statement, seen)
        if isinstance(node, cst.Call):
            func = node.func
            if _torch_function(func):
                function = (dotted(func) or "").rsplit(".", 1)[-1]
                return function in TENSOR_FUNCTIONS or (function in REDUCTIONS and len(node.args) == 1)
            return (
                isinstance(func, cst.Attribute)
                and func.attr.value in TENSOR_METHODS
                and (func.attr.value not in REDUCTIONS or not node.args)
            )
        if isinstance(node, cst.UnaryOperation) and not isinstance(node.operator, cst.Not):
            return self._tensor_value(node.expression, statement, seen)
        if isinstance(node, cst.Subscript):
            return self._tensor_value(node.value, statement, seen)
        if isinstance(node, cst.BinaryOperation | cst.Comparison):
            parts = (
                [node.left, node.right]
                if isinstance(node, cst.BinaryOperation)
                else [node.left, *(c.comparator for c in node.comparisons)]
            )
            tensors = [p for p in parts if self._tensor_value(p, statement, seen)]
            return bool(tensors) and all(p in tensors or self._number(p) for p in parts)
        return False


def _reads(node: cst.CSTNode) -> set[str]:
    """The names and attribute chains `node` reads (not the functions it calls)."""
    found: set[str] = set()

    class Visitor(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            found.add(name.value)

        def visit_Attribute(self, attribute: cst.Attribute) -> bool:
            name = dotted(attribute)
            if name is not None:
                found.add(name)
                return False
            return True

        def visit_Call(self, call: cst.Call) -> bool:
            if isinstance(call.func, cst.Attribute) and not _torch_function(call.func):
                call.func.value.visit(self)
            for arg in call.args:
                arg.value.visit(self)
            return False

    node.visit(Visitor())
    return found


def _torch_function(func: cst.BaseExpression) -> bool:
    name = dotted(func)
    return name is not None and name.startswith(TORCH_PREFIXES)


def _safe_exponent(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Float):
        return True
    return isinstance(node, cst.Integer) and int(node.value.replace("_", ""), 0) >= 0


def _tensor_parameter(ctx: FixContext, param: cst.Param) -> bool:
    """Declared a tensor (`y: torch.Tensor`), not Optional, and no `None` default."""
    if param.annotation is None or (isinstance(param.default, cst.Name) and param.default.value == "None"):
        return False
    text = ctx.code_for(param.annotation.annotation).strip().strip("'\"")
    return TENSOR_ANNOTATION.fullmatch(text) is not None


def _statement_of(ctx: FixContext, node: cst.CSTNode) -> cst.CSTNode | None:
    """The statement of a block that evaluates `node` (an `elif` test: its chain's first `if`)."""
    current: cst.CSTNode = node
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, cst.IndentedBlock) and isinstance(current, cst.BaseStatement):
            return current
        current = ancestor
    return None
