"""A branch that guards a value against its degenerate case keeps its `if` (no torch.where).

torch.where evaluates both arms and sends the unselected arm a zero gradient. Where a branch exists
because a value is degenerate (near zero, or not finite), that zero meets the value's backward at
exactly the point where it is inf or NaN, and 0 * inf = NaN reaches the inputs where the `if` sent
them nothing. Measured on torch 2.13 with torchdiffeq's initial step (`if d0 < 1e-5 or d1 < 1e-5:
h0 = 1e-6 else: h0 = 0.01 * d0 / d1`, `d0` an RMS norm whose `sqrt` has an infinite backward at a
zero state): `odeint` from `y0 = 0` gives finite gradients, the torch.where rewrite NaN ones
(fixture `predicate/neg_epsilon_guard`, tests/rewrite/test_degenerate_guards.py).

The guard is read from the condition's text:
- a comparison of a value with a tolerance (0 < |c| <= SMALL: `d < 1e-5`), or an equality test
  with zero (`v == 0`); a sign test (`x >= 0`) is not a guard;
- a finiteness test of a value (`torch.isfinite(v)`, `v.isnan()`, `torch.isinf(v)`).
The rewrite is refused when a guarded value
- is read by one arm and not by another: the `if` never differentiated the value's producer on the
  path that does not read it, torch.where sends it 0 (an else-less update keeps the old value, so
  that arm reads what it assigns); or
- is an operand of an arm's `*`, `/`, `**`, `@` or of a function singular at zero or infinity
  (`sqrt`, `log`, ...): the local derivative there is inf or NaN itself.
An arm that passes the value on through `+`, `-` or `clamp` in every arm is kept: the fp16
overflow clamp `if torch.isinf(h).any(): h = h.clamp(...)` sends the same gradients either way.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from graphmend_bot.rewrite.context import Rejected
from graphmend_bot.rewrite.purity import dotted, names_in

SMALL = 1e-3  # thresholds at or below this are tolerances (1e-5, 1e-8, 0), not modelling choices
FINITENESS_TESTS = frozenset({"isfinite", "isnan", "isinf", "isposinf", "isneginf"})
SINGULAR_OPERATORS = (cst.Multiply, cst.Divide, cst.FloorDivide, cst.Power, cst.MatrixMultiply, cst.Modulo)
SINGULAR_FUNCTIONS = frozenset({
    "sqrt", "rsqrt", "log", "log2", "log10", "log1p", "reciprocal", "pow", "div", "true_divide", "mul",
    "acos", "asin", "atanh", "norm", "matmul", "mm", "bmm", "einsum", "prod",
})

Arm = Sequence[cst.CSTNode]  # the statements or expressions one path evaluates


def require_no_degenerate_guard(tests: Sequence[cst.BaseExpression], arms: Sequence[Arm]) -> None:
    """Raise Rejected when a test guards a value against its degenerate case and torch.where would
    send that value a gradient the `if` did not (see the module docstring)."""
    reads = [{name for node in arm for name in _differentiable_reads(node)} for arm in arms]
    singular = {name for arm in arms for node in arm for name in _singular_operands(node)}
    for test in tests:
        for name, how in sorted(guarded_values(test).items()):
            readers = [name in arm_reads for arm_reads in reads]
            if any(readers) and not all(readers):
                why = "one arm reads it and another does not"
            elif name in singular:
                why = f"an arm takes `{name}` through an operation singular there"
            else:
                continue
            raise Rejected(
                f"the condition guards `{name}` against {how} and {why}: torch.where would send it "
                "a zero gradient, which is NaN where its backward is inf"
            )


def guarded_values(test: cst.BaseExpression) -> dict[str, str]:
    """The names a condition tests for a degenerate value, with what it tests for."""
    found: dict[str, str] = {}

    class Visitor(cst.CSTVisitor):
        def visit_Comparison(self, node: cst.Comparison) -> None:
            operands = [node.left, *(target.comparator for target in node.comparisons)]
            for left, target, right in zip(operands, node.comparisons, operands[1:], strict=False):
                equality = isinstance(target.operator, cst.Equal | cst.NotEqual)
                for value, other in ((left, right), (right, left)):
                    constant = _constant(other)
                    if constant is None or _constant(value) is not None:
                        continue
                    if 0 < abs(constant) <= SMALL or (constant == 0 and equality):
                        for name in names_in(value):
                            found.setdefault(name, "a value near zero")

        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            called = func.attr.value if isinstance(func, cst.Attribute) else dotted(func)
            if called not in FINITENESS_TESTS:
                return
            if node.args:  # torch.isfinite(v)
                tested: cst.CSTNode = node.args[0].value
            elif isinstance(node.func, cst.Attribute):  # v.isfinite()
                tested = node.func.value
            else:
                return
            for name in names_in(tested):
                if name != "torch":
                    found.setdefault(name, "a non-finite value")

    test.visit(Visitor())
    return found


def _differentiable_reads(node: cst.CSTNode) -> set[str]:
    """The names `node` reads where a gradient can flow: not assignment targets, and not inside a
    comparison (a bool carries no gradient: `scores - 1e4 * (mask == 0)` sends `mask` none)."""
    found: set[str] = set()

    class Visitor(cst.CSTVisitor):
        def visit_Comparison(self, comparison: cst.Comparison) -> bool:
            return False

        def visit_AssignTarget(self, target: cst.AssignTarget) -> bool:
            return False

        def visit_Name(self, name: cst.Name) -> None:
            found.add(name.value)

        def visit_Attribute(self, attribute: cst.Attribute) -> bool:
            attribute.value.visit(self)
            return False

    node.visit(Visitor())
    return found


def _singular_operands(node: cst.CSTNode) -> set[str]:
    """Names read as an operand of a multiplication, division or power, or as an argument of a
    function singular at zero or infinity, anywhere in `node` (outside comparisons)."""
    found: set[str] = set()

    class Visitor(cst.CSTVisitor):
        def visit_Comparison(self, comparison: cst.Comparison) -> bool:
            return False

        def visit_BinaryOperation(self, operation: cst.BinaryOperation) -> None:
            if isinstance(operation.operator, SINGULAR_OPERATORS):
                found.update(_differentiable_reads(operation.left) | _differentiable_reads(operation.right))

        def visit_Call(self, call: cst.Call) -> None:
            func = call.func
            called = func.attr.value if isinstance(func, cst.Attribute) else dotted(func)
            if called in SINGULAR_FUNCTIONS:
                found.update(name for arg in call.args for name in _differentiable_reads(arg.value))
                if isinstance(func, cst.Attribute):  # v.sqrt()
                    found.update(_differentiable_reads(func.value))

    node.visit(Visitor())
    return found


def _constant(node: cst.BaseExpression) -> float | None:
    """The value of a numeric literal (signed), else None."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus | cst.Plus):
        node = node.expression
    if not isinstance(node, cst.Integer | cst.Float):
        return None
    try:
        return float(node.evaluated_value)
    except (TypeError, ValueError):
        return None
