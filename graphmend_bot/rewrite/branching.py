"""Shared by the control-flow rewrites: what a function's local names hold, and branch conditions
lowered to tensors (`and`/`or`/`not` -> `torch.logical_*`), with their shape proven 0-d.

A Python `if` on a tensor needs exactly one element; `torch.where(c, a, b)` broadcasts `c`, so a
condition of shape (1,) or (1, 1) could add dimensions to 0-d or 1-d arms. Conditions are accepted
only when they are provably 0-d: reductions without `dim` (`x.any()`, `torch.isnan(x).any()`,
`torch.max(x)`), comparisons and arithmetic of those with Python numbers, or local names assigned
only such values.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import cast

import libcst as cst

from graphmend_bot.rewrite.context import FixContext, Rejected
from graphmend_bot.rewrite.partial_operators import skipped_operand_operators
from graphmend_bot.rewrite.purity import REDUCTIONS, ArmAnalyzer, dotted, is_config_value

SCALAR_ANNOTATIONS = frozenset({"int", "float", "bool"})
SCALAR_METHODS = frozenset({"size", "dim", "numel", "ndimension", "nelement", "get_device"})
SCALAR_FUNCTIONS = frozenset({"len", "int", "float", "min", "max", "abs", "round"})


@dataclass
class LocalFacts:
    """Assignments to plain names in one function, and its parameters."""

    params: dict[str, cst.Param] = field(default_factory=dict)
    assignments: dict[str, list[cst.BaseExpression | None]] = field(default_factory=dict)
    first_row: dict[str, int] = field(default_factory=dict)
    # What evidence derives from these facts (and their FixContext), computed once and reused by
    # every finding in the function: recomputing it per finding was quadratic in breaks.
    derived: dict[tuple[object, ...], object] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(cls, ctx: FixContext, function: cst.FunctionDef | None) -> LocalFacts:
        """The function's facts, collected once and shared by every finding in it (read-only)."""
        if function is None:
            return cls()
        key = ("local facts", id(function))
        if key not in ctx.memo:
            ctx.memo[key] = cls._collect(ctx, function)
        return cast(LocalFacts, ctx.memo[key])

    @classmethod
    def _collect(cls, ctx: FixContext, function: cst.FunctionDef) -> LocalFacts:
        facts = cls()
        params = function.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            facts.params[param.name.value] = param
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                facts.params[star.name.value] = star

        class Collector(cst.CSTVisitor):
            def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
                return node is function  # nested functions have their own locals

            def visit_ClassDef(self, node: cst.ClassDef) -> bool:
                return False

            def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression | None, at: cst.CSTNode) -> None:
                if isinstance(target, cst.Name):
                    facts.assignments.setdefault(target.value, []).append(value)
                    facts.first_row.setdefault(target.value, ctx.position(at).start.line)
                elif isinstance(target, cst.Tuple | cst.List):
                    sizes = _unpacked_sizes(value, target)
                    for index, element in enumerate(target.elements):
                        self._bind(element.value, sizes[index] if sizes else None, at)
                elif isinstance(target, cst.StarredElement):
                    self._bind(target.value, None, at)

            def visit_Assign(self, node: cst.Assign) -> None:
                for target in node.targets:
                    self._bind(target.target, node.value, node)

            def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
                self._bind(node.target, node.value, node)

            def visit_AugAssign(self, node: cst.AugAssign) -> None:
                self._bind(node.target, None, node)

            def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
                self._bind(node.target, None, node)

            def visit_For(self, node: cst.For) -> None:
                self._bind(node.target, None, node)

            def visit_WithItem(self, node: cst.WithItem) -> None:
                if node.asname is not None:
                    self._bind(node.asname.name, None, node)

            def visit_CompFor(self, node: cst.CompFor) -> None:
                self._bind(node.target, None, node)

        function.body.visit(Collector())
        return facts

    def values(self, name: str) -> list[cst.BaseExpression | None]:
        return self.assignments.get(name, [])

    def bound_before(self, name: str, row: int) -> bool:
        """`name` is a parameter or assigned on an earlier line of the function."""
        return name in self.params or self.first_row.get(name, row) < row

    def python_scalars(self) -> frozenset[str]:
        """Names that only ever hold Python numbers (constants, config values, sizes)."""
        if ("python scalars",) not in self.derived:
            self.derived[("python scalars",)] = self._python_scalars()
        return cast(frozenset[str], self.derived[("python scalars",)])

    def _python_scalars(self) -> frozenset[str]:
        found: set[str] = set()
        for name, param in self.params.items():
            annotation = param.annotation
            scalar = (
                annotation is not None
                and isinstance(annotation.annotation, cst.Name)
                and annotation.annotation.value in SCALAR_ANNOTATIONS
            )
            if scalar and name not in self.assignments:
                found.add(name)
        changed = True
        while changed:
            changed = False
            for name, values in self.assignments.items():
                if name in found or name in self.params:
                    continue
                if values and all(v is not None and is_python_number(v, found) for v in values):
                    found.add(name)
                    changed = True
        return frozenset(found)


def _unpacked_sizes(value: cst.BaseExpression | None, target: cst.Tuple | cst.List) -> list[cst.BaseExpression] | None:
    """`b, n, _ = x.shape` (or `x.size()`, or a slice `x.shape[-2:]`) binds each name to
    `x.shape[i]`, a Python int."""
    if value is None or any(isinstance(e, cst.StarredElement) for e in target.elements):
        return None
    start = 0
    if isinstance(value, cst.Subscript) and len(value.slice) == 1 and isinstance(value.slice[0].slice, cst.Slice):
        window = value.slice[0].slice
        first = _integer(window.lower) if window.lower is not None else 0
        if first is None or window.step is not None or (first < 0 and first + len(target.elements) > 0):
            return None
        start, value = first, value.value
    if isinstance(value, cst.Call) and not value.args and isinstance(value.func, cst.Attribute) and value.func.attr.value == "size":
        tensor = value.func.value
    elif isinstance(value, cst.Attribute) and value.attr.value == "shape":
        tensor = value.value
    else:
        return None
    shape = cst.Attribute(tensor, cst.Name("shape"))
    return [
        cst.Subscript(shape, [cst.SubscriptElement(cst.Index(_integer_node(start + index)))])
        for index in range(len(target.elements))
    ]


def _integer(node: cst.BaseExpression) -> int | None:
    """The value of an integer literal, negative ones included."""
    if isinstance(node, cst.Integer):
        return int(node.value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and isinstance(node.expression, cst.Integer):
        return -int(node.expression.value)
    return None


def _integer_node(value: int) -> cst.BaseExpression:
    return cst.Integer(str(value)) if value >= 0 else cst.UnaryOperation(cst.Minus(), cst.Integer(str(-value)))


def is_python_number(node: cst.BaseExpression, scalars: set[str] | frozenset[str]) -> bool:
    """Whether `node` provably evaluates to a Python number (never a tensor)."""
    if isinstance(node, cst.Integer | cst.Float):
        return True
    if isinstance(node, cst.Name):
        return node.value in scalars or node.value in ("True", "False")
    if isinstance(node, cst.Attribute):
        if isinstance(node.value, cst.Call) and dotted(node.value.func) in ("torch.finfo", "torch.iinfo"):
            return node.attr.value in ("max", "min", "eps", "tiny", "resolution", "smallest_normal")
        name = dotted(node)
        return name is not None and is_config_value(name)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus | cst.Plus):
        return is_python_number(node.expression, scalars)
    if isinstance(node, cst.BinaryOperation):
        return is_python_number(node.left, scalars) and is_python_number(node.right, scalars)
    if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Attribute) and node.value.attr.value == "shape":
        return True
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in SCALAR_METHODS:
            return True
        if isinstance(func, cst.Name) and func.value in ("len",):
            return True
    return False


# Elementwise predicates a solver applies to its 0-d state (`if not torch.isfinite(dt):`).
STATE_PREDICATES = frozenset({"torch.isfinite", "torch.isnan", "torch.isinf"})
# Predicates whose result is a bool tensor whatever their input's dtype.
BOOL_PREDICATES = frozenset({"isnan", "isinf", "isfinite", "isposinf", "isneginf", "logical_and", "logical_or",
                             "logical_not", "logical_xor", "eq", "ne", "lt", "le", "gt", "ge", "isclose"})
# Reductions that return a bool tensor only for a bool input (`uint8.any()` is uint8, and `~` of it
# is 254 or 255: never false).
BOOL_REDUCTIONS = frozenset({"any", "all"})


def is_bool_tensor_code(node: cst.BaseExpression) -> bool:
    """`node`, once lowered as a tensor condition, is a bool tensor (a comparison, a predicate,
    `any()`/`all()` of a bool tensor, `not`/`and`/`or` of such), so `~ & |` mean what `not and or`
    meant."""
    if isinstance(node, cst.Comparison):
        return True
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return is_bool_tensor_code(node.expression)
    if isinstance(node, cst.BooleanOperation):
        return is_bool_tensor_code(node.left) and is_bool_tensor_code(node.right)
    if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
        return False
    name = node.func.attr.value
    if name in BOOL_PREDICATES:
        return True
    if name not in BOOL_REDUCTIONS:
        return False
    if dotted(node.func) in ("torch.any", "torch.all"):  # torch.any(x): the reduced tensor is the argument
        return len(node.args) >= 1 and is_bool_tensor_code(node.args[0].value)
    return is_bool_tensor_code(node.func.value)  # x.any(): the reduced tensor is the receiver


def operand(node: cst.BaseExpression, code: str) -> str:
    """`code` parenthesised where `~`, `&` or `|` would bind tighter than what it holds."""
    if isinstance(node, cst.Call | cst.Name | cst.Attribute | cst.Subscript) and not code.startswith(("~", "-")):
        return code
    if code.startswith("(") and code.endswith(")") and node.lpar:
        return code
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not) and code.startswith("~"):
        return code  # `~` binds tighter than `&` and `|`: `a & ~b`
    return f"({code})"


class ConditionLowering:
    """Turn an `if` test into tensor code, or raise Rejected."""

    def __init__(
        self, ctx: FixContext, facts: LocalFacts, evaluated_as_written: bool = False, operators: bool = False
    ) -> None:
        """`evaluated_as_written`: the rewrite evaluates the condition exactly once, where the `if`
        did (a guard's assertion), so what a reduction reads need not be pure or elementwise;
        operands of `and`/`or`, which lose their short-circuit, stay strict (the first one seen
        turns this off). `operators`: write `&`, `|` and `~` where every operand is a bool tensor
        (they are `logical_and/or/not` there), as maintainers write them."""
        self.operators = operators
        # Set by callers whose rewrite keeps the `if`'s own requirement on its condition (see
        # `_assumed_one_element`); every use adds an assumption, so the fix is unsafe.
        self.assume_one_element = False
        self.ctx = ctx
        self.facts = facts
        self.evaluated_as_written = evaluated_as_written
        self.scalars = facts.python_scalars()
        self.arms = ArmAnalyzer(self.scalars)
        self.assumptions: list[str] = []
        # The operand of the outermost `and`/`or` being lowered that Python always evaluates.
        self._first: cst.BaseExpression | None = None

    def lower(self, node: cst.BaseExpression) -> str:
        """Tensor code for the condition `node` (0-d, pure).

        `and`/`or` no longer short-circuit: their right operand is always evaluated. When it holds
        a reduction that fails on some inputs (`mean` of an integer tensor, `max` of an empty
        one), that becomes an assumption in `self.assumptions`.
        """
        if isinstance(node, cst.BooleanOperation):
            outermost = self._first is None
            self._first = self._first or leftmost_operand(node)
            try:
                return self._lower_operation(node)
            finally:
                if outermost:
                    self._first = None
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            inner = self.lower(node.expression)
            if self.operators and is_bool_tensor_code(node.expression):
                return f"~{operand(node.expression, inner)}"
            return f"torch.logical_not({inner})"
        if not self.is_scalar_tensor(node):
            if not (self.assume_one_element and self._assumed_one_element(node)):
                raise Rejected("the condition is not provably a one-element (0-d) tensor")
            note = (
                f"`{self._code(node)}` is a 0-d tensor: the `if` already required a single element, "
                "but a shape-(1,) condition would give torch.where's result shape (1,)"
            )
            if note not in self.assumptions:
                self.assumptions.append(note)
        return self._code(node)

    def _lower_operation(self, node: cst.BooleanOperation) -> str:
        self.evaluated_as_written = False
        function = "logical_and" if isinstance(node.operator, cst.And) else "logical_or"
        keyword = "and" if function == "logical_and" else "or"
        right = self.lower(node.right)
        failing = sorted(failing_reductions(node.right))
        if failing:
            note = (
                f"evaluates `{right}` even where `{keyword}` would have skipped it "
                f"(assumes {', '.join(f'`.{r}()`' for r in failing)} cannot fail there: "
                "a floating-point, non-empty tensor)"
            )
            self.assumptions.append(note)
        self._note_raising(right, node.right, keyword)
        self._note_skipped(right, node.right, keyword)
        left = self.lower(node.left)
        if self.operators and is_bool_tensor_code(node.left) and is_bool_tensor_code(node.right):
            symbol = "&" if function == "logical_and" else "|"
            return f"{operand(node.left, left)} {symbol} {operand(node.right, right)}"
        return f"torch.{function}({left}, {right})"

    def _note_skipped(self, code: str, node: cst.BaseExpression, keyword: str) -> None:
        """`y.sum() > 0` in `(x > 0).all() or y.sum() > 0` may raise where `or` skipped it (`y=None`)."""
        from graphmend_bot.rewrite.skipped_operands import SkippedOperand  # it builds on this module

        if self._first is None:
            return
        risks = SkippedOperand(self.ctx, self.facts, self._first).risks(node)
        if risks:
            self.assumptions.append(
                f"evaluates `{code}` even where `{keyword}` would have skipped it (assumes it cannot raise there: "
                + "; ".join(risks) + ")"
            )

    def _assumed_one_element(self, node: cst.BaseExpression) -> bool:
        """A comparison of solver state, like the step-size tests of ODE solvers (`dt >
        self.max_step`, `error_ratio < 1`): each operand is a Python number, a `self.<attr>` read
        or a plain name (unpacked from a state tuple, returned by a call, or a parameter such as
        torchdiffeq's `_optimal_step_size(last_step, error_ratio, ...)`). The analysis cannot size
        them, but Python's `if` raises unless they hold one element. Elementwise expressions of
        parameters (`x.abs() > 0`) stay rejected: a batch of one would broadcast 0-d arms."""
        if isinstance(node, cst.Call) and dotted(node.func) in STATE_PREDICATES:
            # `torch.isfinite(dt)`: elementwise, so as many elements as the state it reads
            return len(node.args) == 1 and node.args[0].keyword is None and self._state_read(node.args[0].value)
        if not isinstance(node, cst.Comparison) or len(node.comparisons) != 1:
            return False
        operator = node.comparisons[0].operator
        if isinstance(operator, cst.Is | cst.IsNot | cst.In | cst.NotIn):
            return False
        tensors = [p for p in (node.left, node.comparisons[0].comparator) if not is_python_number(p, self.scalars)]
        return bool(tensors) and all(
            self._state_read(part) or (isinstance(part, cst.Name) and part.value in self.facts.params)
            for part in tensors
        )

    def _state_read(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Attribute):
            return isinstance(node.value, cst.Name) and node.value.value == "self"
        return isinstance(node, cst.Name) and node.value not in self.facts.params and bool(self.facts.values(node.value))

    def _note_raising(self, code: str, node: cst.BaseExpression, keyword: str) -> None:
        """`x - 1` or `y.abs()` in an operand `keyword` may skip raises on a bool tensor (partial_operators.py)."""
        raising = skipped_operand_operators(node)
        if raising:
            self.assumptions.append(
                f"evaluates `{code}` even where `{keyword}` would have skipped it (assumes "
                f"{', '.join(f'`{op}`' for op in raising)} accepts its tensors: bool ones, and for activations "
                "integer ones, raise)"
            )

    def lower_conjunction(self, parts: list[cst.BaseExpression]) -> str:
        """`torch.logical_and` over `parts` (already split from an `and` chain)."""
        if len(parts) > 1:
            self.evaluated_as_written = False
        code = first = self.lower(parts[0])
        outermost = self._first is None
        self._first = self._first or leftmost_operand(parts[0])
        try:
            return self._conjoin(parts, code, first)
        finally:
            if outermost:
                self._first = None

    def _conjoin(self, parts: list[cst.BaseExpression], code: str, first: str) -> str:
        for part in parts[1:]:
            right = self.lower(part)
            failing = sorted(failing_reductions(part))
            if failing:
                self.assumptions.append(
                    f"evaluates `{right}` even where `and` would have skipped it (assumes "
                    f"{', '.join(f'`.{r}()`' for r in failing)} cannot fail there: a floating-point, non-empty tensor)"
                )
            self._note_raising(right, part, "and")
            self._note_skipped(right, part, "and")
            if self.operators and is_bool_tensor_code(parts[0]) and is_bool_tensor_code(part):
                code = f"{operand(parts[0], code) if code is first else code} & {operand(part, right)}"
            else:
                code = f"torch.logical_and({code}, {right})"
        return code

    def _code(self, node: cst.BaseExpression) -> str:
        return self.ctx.code_for(node).strip()

    def is_scalar_tensor(self, node: cst.BaseExpression) -> bool:
        """A provably 0-d tensor, computed without side effects."""
        if isinstance(node, cst.Name):
            values = self.facts.values(node.value)
            return bool(values) and node.value not in self.facts.params and all(
                v is not None and self.is_scalar_tensor(v) for v in values
            )
        if isinstance(node, cst.Call):
            return self._reduction(node)
        if isinstance(node, cst.Comparison):
            if len(node.comparisons) != 1 or isinstance(
                node.comparisons[0].operator, cst.Is | cst.IsNot | cst.In | cst.NotIn
            ):
                return False
            return self._scalar_combination([node.left, node.comparisons[0].comparator])
        if isinstance(node, cst.BinaryOperation):
            if isinstance(node.operator, cst.MatrixMultiply | cst.FloorDivide | cst.Modulo):
                return False
            return self._scalar_combination([node.left, node.right])
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus | cst.BitInvert):
            return self.is_scalar_tensor(node.expression)
        return False

    def _scalar_combination(self, parts: list[cst.BaseExpression]) -> bool:
        tensors = [p for p in parts if self.is_scalar_tensor(p)]
        return bool(tensors) and all(p in tensors or is_python_number(p, self.scalars) for p in parts)

    def _reduction(self, call: cst.Call) -> bool:
        func = call.func
        name = dotted(func)
        if name is not None and name.startswith("torch.") and name.count(".") == 1:
            function = name.split(".", 1)[1]
            if function in REDUCTIONS and len(call.args) == 1 and call.args[0].keyword is None and not call.args[0].star:
                return self._pure_tensor(call.args[0].value)
            return False
        if isinstance(func, cst.Attribute) and func.attr.value in REDUCTIONS and not call.args:
            return self._pure_tensor(func.value)
        return False

    def _pure_tensor(self, node: cst.BaseExpression) -> bool:
        if self.evaluated_as_written:
            return not is_python_number(node, self.scalars)
        try:
            info = self.arms.analyze(node)
        except Rejected:
            return False
        return bool(info.leaves)


# Reductions that raise for some inputs: float-only ones on integer tensors, and max-like ones on
# empty tensors (sum/any/all/prod never raise).
FAILING_REDUCTIONS = frozenset({"mean", "std", "var", "norm", "max", "min", "amax", "amin", "median"})


def leftmost_operand(node: cst.BaseExpression) -> cst.BaseExpression:
    """The operand of an `and`/`or` chain Python evaluates first, whatever the others hold."""
    while isinstance(node, cst.BooleanOperation):
        node = node.left
    return node


def failing_reductions(node: cst.CSTNode) -> set[str]:
    found: set[str] = set()

    class Visitor(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            func = call.func
            if isinstance(func, cst.Attribute) and func.attr.value in FAILING_REDUCTIONS:
                found.add(func.attr.value)

    node.visit(Visitor())
    return found


def enclosing_function(ctx: FixContext, node: cst.CSTNode) -> cst.FunctionDef | None:
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, cst.FunctionDef):
            return ancestor
    return None


def torch_import(ctx: FixContext) -> list:
    """The `import torch` edit when the module does not bind `torch` yet (at any level)."""
    if binds_torch(ctx.module):
        return []
    edit = ctx.ensure_import("import torch")
    return [edit] if edit is not None else []


def binds_torch(module: cst.Module) -> bool:
    """`import torch` anywhere at module level, also under `if is_torch_available():` guards."""
    for statement in _module_statements(module.body):
        for small in statement.body:
            if isinstance(small, cst.Import):
                for alias in small.names:
                    if alias.asname is None and dotted(alias.name) is not None and (dotted(alias.name) or "").split(".")[0] == "torch":
                        return True
    return False


def _module_statements(body: object) -> Iterator[cst.SimpleStatementLine]:
    for statement in body:  # type: ignore[attr-defined]
        if isinstance(statement, cst.SimpleStatementLine):
            yield statement
        elif isinstance(statement, cst.If | cst.Try):
            yield from _module_statements(statement.body.body)
            orelse = getattr(statement, "orelse", None)
            while isinstance(orelse, cst.If):
                yield from _module_statements(orelse.body.body)
                orelse = orelse.orelse
            if isinstance(orelse, cst.Else):
                yield from _module_statements(orelse.body.body)
