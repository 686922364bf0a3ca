"""Safety analysis for predicated control flow: which expressions may run eagerly, and what they are.

`torch.where(c, A, B)` evaluates both arms, so an arm must be pure (no side effects, nothing that
can raise where the branch would not), cheap (elementwise) and must give the same value the branch
would have given, bit for bit. That last part needs the arms' shapes and dtypes to agree, since
`torch.where` broadcasts and promotes. Without runtime types we reason symbolically:

- an arm is built from *leaves* (names and attribute reads such as `x`, `self.scale`), Python
  number constants, and whitelisted elementwise operators;
- its shape is the broadcast of its leaves' shapes, so two arms with the same leaf set have the same
  shape;
- its dtype is the promotion of its leaves' dtypes raised to the category of its scalar constants
  and dtype-changing operators (`/`, `exp`... give floats, comparisons give bools), so two arms with
  the same leaves and the same category give the same dtype for any leaf dtypes.

When arms differ only in the scalar category, the rewrite is right under an assumption on the
leaves' dtypes (not bool, or floating point): such fixes are offered as unsafe with that assumption
in the message.

Autograd: `torch.where`'s backward sends `0 * grad` into the unselected arm; if that arm's own
backward is inf or NaN there (sqrt or log of a negative number or zero, division by zero, exp
overflow, ...) the product is NaN and poisons the gradient of the shared inputs. Arms that use
such operators are reported in `ArmInfo.risky` and the fix is marked unsafe (GM101's fix safety
says so) instead of being rewritten with the masking "double where" pattern, which would make the
code harder to read for a case a maintainer should look at. For the remaining operators the
gradients are bit-identical as long as the tensors involved are finite (with an inf or NaN input,
`0 * inf` can appear in any product's backward). Because a safe fix needs both arms to use the
same tensors, no tensor gets a gradient on one path and None on the other.

Eager evaluation: an arm that would raise for some dtype (`-` on a bool tensor, `gelu` on an
integer one) raises in the rewrite even when not selected. `ArmInfo.partial` records such operators
and the operands they may fail for; arms that differ in them make the fix unsafe, with the dtype
they assume (partial_operators.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from graphmend_bot.rewrite.context import Rejected
from graphmend_bot.rewrite.partial_operators import Partial, partial_use

# Categories of a Python scalar or a dtype kind, in promotion order.
NONE, BOOL, INT, FLOAT = 0, 1, 2, 3
CATEGORY_NAMES = {BOOL: "bool", INT: "integer", FLOAT: "floating-point"}

# Elementwise functions (torch.X, Tensor.X, torch.nn.functional.X) by their effect on the dtype.
KEEP_DTYPE = frozenset({
    "abs", "neg", "negative", "relu", "clamp", "clip", "clamp_min", "clamp_max", "minimum",
    "maximum", "fmin", "fmax", "floor", "ceil", "round", "trunc", "sign", "square", "add", "sub",
    "subtract", "mul", "multiply", "lerp", "nan_to_num", "where", "relu6", "hardtanh", "leaky_relu",
    "positive", "conj", "clone", "contiguous", "detach",
})
TO_FLOAT = frozenset({
    "exp", "exp2", "expm1", "sigmoid", "tanh", "sin", "cos", "atan", "sinh", "cosh", "asinh",
    "erf", "erfc", "softplus", "gelu", "silu", "mish", "elu", "selu", "celu", "hardsigmoid",
    "hardswish", "logsigmoid", "tanhshrink", "softsign", "deg2rad", "rad2deg", "frac", "sinc",
    # Risky for autograd (see RISKY) but still elementwise:
    "sqrt", "rsqrt", "log", "log1p", "log2", "log10", "reciprocal", "div", "true_divide", "divide",
    "acos", "asin", "atanh", "acosh", "tan", "logit", "erfinv", "pow", "float_power",
})
TO_BOOL = frozenset({
    "isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit", "logical_and", "logical_or",
    "logical_not", "logical_xor", "eq", "ne", "lt", "le", "gt", "ge", "greater", "less",
    "greater_equal", "less_equal", "not_equal",
})
FIXED_DTYPE_METHODS = {"float": "<float32>", "double": "<float64>", "half": "<float16>", "bfloat16": "<bfloat16>", "bool": "<bool>"}
# Functions whose backward can be inf/NaN for some inputs (so `0 * grad` is NaN).
# exp-like functions overflow to inf for large finite inputs, so their backward is inf there too.
RISKY = frozenset({
    "sqrt", "rsqrt", "log", "log1p", "log2", "log10", "reciprocal", "div", "true_divide", "divide",
    "acos", "asin", "atanh", "acosh", "tan", "logit", "erfinv", "pow", "float_power",
    "exp", "exp2", "expm1", "sinh", "cosh",
})
ELEMENTWISE = KEEP_DTYPE | TO_FLOAT | TO_BOOL
# Functions that take tensors only: a Python number operand raises TypeError when evaluated.
TENSOR_OPERANDS_ONLY = frozenset({"maximum", "minimum", "fmax", "fmin", "logical_and", "logical_or", "logical_xor"})
# Keyword arguments these functions take that never change what the arms mean.
ALLOWED_KEYWORDS = frozenset({"min", "max", "nan", "posinf", "neginf", "alpha", "weight", "negative_slope", "beta", "threshold", "approximate"})
# Reductions to a 0-d tensor (no `dim` argument): the shape of a branch condition.
REDUCTIONS = frozenset({"any", "all", "sum", "mean", "max", "min", "amax", "amin", "prod", "norm", "std", "var", "median", "count_nonzero"})
TORCH_MODULES = ("torch.", "torch.nn.functional.", "F.", "nn.functional.")


@dataclass(frozen=True)
class ArmInfo:
    """What an elementwise expression is made of."""

    leaves: frozenset[str]  # names and attribute reads (shape: their broadcast)
    category: int = NONE  # the highest scalar/operator dtype category
    fixed: frozenset[str] = frozenset()  # dtypes fixed by operators (<bool> for comparisons)
    risky: tuple[str, ...] = ()  # operators whose backward can be inf/NaN
    reads: frozenset[str] = field(default=frozenset())
    notes: tuple[str, ...] = ()  # assumptions evaluating it on every path makes (`float(order + 1)`)
    partial: frozenset[Partial] = frozenset()  # operators that raise for some operand dtypes (partial_operators.py)

    @property
    def dtype_key(self) -> tuple[frozenset[str], frozenset[str], int]:
        return (self.leaves, self.fixed, self.category)

    def join(self, *others: ArmInfo, category: int | None = None, fixed: frozenset[str] | None = None, risky: str | None = None,
             partial: Partial | None = None) -> ArmInfo:
        parts = (self, *others)
        return ArmInfo(
            leaves=frozenset().union(*(p.leaves for p in parts)),
            category=max(p.category for p in parts) if category is None else category,
            fixed=frozenset().union(*(p.fixed for p in parts)) if fixed is None else fixed,
            risky=tuple(dict.fromkeys(r for p in parts for r in p.risky)) + ((risky,) if risky else ()),
            notes=tuple(dict.fromkeys(n for p in parts for n in p.notes)),
            partial=frozenset().union(*(p.partial for p in parts)) | ({partial} if partial else set()),
        )


def dotted(node: cst.BaseExpression) -> str | None:
    """`a.b.c` for a chain of attribute reads on a name, else None."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def _function_name(func: cst.BaseExpression) -> str | None:
    """The elementwise function a call names (`torch.exp` -> `exp`), else None."""
    name = dotted(func)
    if name is None:
        return None
    for prefix in TORCH_MODULES:
        if name.startswith(prefix) and "." not in name[len(prefix):]:
            return name[len(prefix):]
    return None


# Attributes of a tensor that change its shape or meaning: not plain leaves.
SHAPE_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "real", "imag", "grad", "shape", "dtype", "device", "data"})


class ArmAnalyzer:
    """Classify expressions; `python_scalars` are names known to hold Python numbers."""

    def __init__(self, python_scalars: frozenset[str] = frozenset()) -> None:
        self.python_scalars = python_scalars
        self.known_float: set[str] = set()  # leaves proven floating-point (by a dtype check)

    def analyze(self, node: cst.BaseExpression) -> ArmInfo:
        if isinstance(node, cst.Integer):
            return ArmInfo(frozenset(), INT)
        if isinstance(node, cst.Float):
            return ArmInfo(frozenset(), FLOAT)
        if isinstance(node, cst.Name):
            if node.value in ("True", "False"):
                return ArmInfo(frozenset(), BOOL)
            if node.value == "None":
                raise Rejected("`None` in an arm")
            if node.value in self.python_scalars:
                return ArmInfo(frozenset(), FLOAT)  # a Python number of unknown kind: assume the widest
            return ArmInfo(frozenset({node.value}))
        if isinstance(node, cst.Attribute):
            name = dotted(node)
            if name is None or node.attr.value in SHAPE_ATTRIBUTES:
                raise Rejected(f"attribute read `{node.attr.value}`")
            if is_config_value(name):
                return ArmInfo(frozenset(), FLOAT)
            return ArmInfo(frozenset({name}))
        if isinstance(node, cst.UnaryOperation):
            inner = self.analyze(node.expression)
            if isinstance(node.operator, cst.Not):
                raise Rejected("`not` converts a tensor to a Python bool")
            if isinstance(node.operator, cst.BitInvert) and inner.fixed != frozenset({"<bool>"}):
                raise Rejected("`~` on a tensor that may not be bool")
            if isinstance(node.operator, cst.Minus):
                return inner.join(partial=partial_use("-", [inner]))
            return inner
        if isinstance(node, cst.BinaryOperation):
            return self._binary(node)
        if isinstance(node, cst.Comparison):
            parts = [self.analyze(node.left), *(self.analyze(t.comparator) for t in node.comparisons)]
            for target in node.comparisons:
                if isinstance(target.operator, cst.Is | cst.IsNot | cst.In | cst.NotIn):
                    raise Rejected("identity or membership test")
            if len(node.comparisons) > 1:
                raise Rejected("chained comparison")
            return parts[0].join(*parts[1:], category=NONE, fixed=frozenset({"<bool>"}))
        if isinstance(node, cst.Call):
            return self._call(node)
        raise Rejected(f"`{type(node).__name__}` is not an elementwise expression")

    def _binary(self, node: cst.BinaryOperation) -> ArmInfo:
        left, right = self.analyze(node.left), self.analyze(node.right)
        op = node.operator
        if isinstance(op, cst.MatrixMultiply):
            raise Rejected("`@` is not elementwise")
        if isinstance(op, cst.LeftShift | cst.RightShift):
            raise Rejected("shift operator")
        if isinstance(op, cst.BitAnd | cst.BitOr | cst.BitXor):
            if left.fixed != frozenset({"<bool>"}) or right.fixed != frozenset({"<bool>"}):
                raise Rejected("bitwise operator on tensors that may not be bool")
            return left.join(right)
        if isinstance(op, cst.FloorDivide | cst.Modulo):
            if right.leaves or not _nonzero_constant(node.right):
                raise Rejected("`//` or `%` by a tensor raises on integer zero")
            return left.join(right)
        if isinstance(op, cst.Divide):
            return left.join(right, category=max(FLOAT, left.category, right.category), risky="/" if right.leaves else None)
        if isinstance(op, cst.Power):
            safe_exponent = isinstance(node.right, cst.Integer) and int(node.right.value, 0) >= 0
            return left.join(right, risky=None if safe_exponent else "**", partial=partial_use("**", [left, right]))
        if isinstance(op, cst.Subtract):
            return left.join(right, partial=partial_use("-", [left, right]))
        return left.join(right)

    def _call(self, node: cst.Call) -> ArmInfo:
        constant = self._constant_tensor(node)
        if constant is not None:
            return constant
        conversion = self._number_conversion(node)
        if conversion is not None:
            return conversion
        args = list(node.args)
        for arg in args:
            if arg.star:
                raise Rejected("star arguments")
            if arg.keyword is not None and arg.keyword.value not in ALLOWED_KEYWORDS:
                raise Rejected(f"keyword argument `{arg.keyword.value}`")
        func = node.func
        name = _function_name(func)
        operands: list[ArmInfo]
        if name is None and isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in FIXED_DTYPE_METHODS and not args:
                inner = self.analyze(func.value)
                return ArmInfo(inner.leaves, NONE, frozenset({FIXED_DTYPE_METHODS[method]}), inner.risky, notes=inner.notes,
                               partial=inner.partial)
            if method not in ELEMENTWISE:
                raise Rejected(f"call to `.{method}()`")
            name = method
            operands = [self.analyze(func.value)]
        elif name in TWO_TENSOR_EXTREMA and self._two_tensors(args):
            name = TWO_TENSOR_EXTREMA[name]
            operands = []
        elif name is None or name not in ELEMENTWISE:
            raise Rejected(f"call to `{dotted(func) or 'a computed function'}`")
        else:
            operands = []
        operands += [self.analyze(arg.value) for arg in args]
        if not any(o.leaves for o in operands) or (name in TENSOR_OPERANDS_ONLY and not all(o.leaves for o in operands)):
            raise Rejected(f"`{name}` needs tensor operands")
        if name != "where" and not operands[0].leaves and isinstance(func, cst.Attribute) and _function_name(func) is None:
            raise Rejected(f"`.{name}()` on a Python number")
        risky = name if name in RISKY else None
        if name == "pow" and len(args) >= 1:
            exponent = args[-1].value
            if isinstance(exponent, cst.Integer) and int(exponent.value, 0) >= 0:
                risky = None
        first = operands[0]
        partial = partial_use(name, operands)
        if name == "where":
            if len(operands) != 3:
                raise Rejected("torch.where needs three arguments here")
            value = operands[1].join(operands[2])
            notes = tuple(dict.fromkeys(value.notes + operands[0].notes))
            return ArmInfo(value.leaves | operands[0].leaves, value.category, value.fixed, value.risky + operands[0].risky, notes=notes,
                           partial=value.partial | operands[0].partial)
        if name in TO_BOOL:
            return first.join(*operands[1:], category=NONE, fixed=frozenset({"<bool>"}), risky=risky, partial=partial)
        if name in TO_FLOAT:
            return first.join(*operands[1:], category=FLOAT, risky=risky, partial=partial)
        return first.join(*operands[1:], partial=partial)

    def _two_tensors(self, args: list[cst.Arg]) -> bool:
        """`torch.max(a, b)` is `torch.maximum(a, b)` only when `b` is a tensor; `torch.max(x, 1)` or
        `torch.max(x, dim)` reduces. A second argument that is a bare name could be a dimension,
        so it must be a constant tensor or an expression computed from a tensor."""
        if len(args) != 2 or any(arg.keyword is not None for arg in args):
            return False
        second = args[1].value
        if isinstance(second, cst.Name | cst.Attribute) and dotted(second) not in self.known_float:
            return False
        try:
            return bool(self.analyze(second).leaves)
        except Rejected:
            return False

    def _number_conversion(self, node: cst.Call) -> ArmInfo | None:
        """`float(e)` / `int(e)` of arithmetic on Python numbers (`float(order + 1)` in an exponent):
        a Python number, not a tensor. Names in `e` the analysis cannot place are assumed to be
        Python numbers (the note says so): on a one-element tensor `float()` gives the same number,
        on a larger one it raises, now on both paths."""
        if not (isinstance(node.func, cst.Name) and node.func.value in NUMBER_CONVERSIONS):
            return None
        if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
            raise Rejected(f"`{node.func.value}()` with other than one positional argument")
        inner = self.analyze(node.args[0].value)
        if inner.fixed or inner.risky or inner.leaves & self.known_float or any(leaf.startswith("<") or "." in leaf for leaf in inner.leaves):
            raise Rejected(f"`{node.func.value}()` of a tensor expression")
        notes = inner.notes
        if inner.leaves:
            names = ", ".join(f"`{leaf}`" for leaf in sorted(inner.leaves))
            verb = "holds a Python number" if len(inner.leaves) == 1 else "hold Python numbers"
            notes += (f"`{node.func.value}()` now runs on both paths (assumes {names} {verb})",)
        return ArmInfo(frozenset(), NUMBER_CONVERSIONS[node.func.value], notes=notes)

    def _constant_tensor(self, node: cst.Call) -> ArmInfo | None:
        """A 0-d tensor built from a Python number (`torch.tensor(1e-6, dtype=dtype, device=device)`,
        `torch.ones((), dtype=...)`): pure, cheap and unable to raise where the branch would not, so
        torch.where may evaluate it on every call. Its shape is () and its dtype the one named (or
        the number's default), so it agrees with the other arm only under an assumption unless that
        arm is the same kind of constant."""
        name = dotted(node.func)
        if name not in CONSTANT_FACTORIES:
            return None
        if any(arg.star for arg in node.args):
            raise Rejected("star arguments")
        positional = [arg.value for arg in node.args if arg.keyword is None]
        keywords = {arg.keyword.value: arg.value for arg in node.args if arg.keyword is not None}
        if set(keywords) - {"dtype", "device"}:
            raise Rejected(f"`{name}` with keywords other than dtype and device")
        if any(dotted(value) is None for value in keywords.values()):
            raise Rejected("a computed dtype or device")
        shape_args, value_args = CONSTANT_FACTORIES[name]
        if len(positional) != shape_args + value_args:
            raise Rejected(f"`{name}` that is not a 0-d constant")
        if shape_args and not (isinstance(positional[0], cst.Tuple) and not positional[0].elements):
            raise Rejected(f"`{name}` with a shape other than ()")
        numbers = [self.analyze(value) for value in positional[shape_args:]]
        if any(number.leaves for number in numbers):
            raise Rejected(f"`{name}` of a tensor value")
        dtype = keywords.get("dtype")
        if dtype is not None:
            fixed = f"<{dotted(dtype)}>"
        elif name in ("torch.ones", "torch.zeros"):
            fixed = "<default float>"
        else:
            fixed = f"<default {CATEGORY_NAMES.get(numbers[0].category, 'float')}>"
        return ArmInfo(frozenset({"<0-d constant>"}), NONE, frozenset({fixed}))


# `torch.max(a, b)` with a tensor `b` is the elementwise maximum.
TWO_TENSOR_EXTREMA = {"max": "maximum", "min": "minimum"}
# Builtins that turn a Python number into another, with the category of the result.
NUMBER_CONVERSIONS = {"float": FLOAT, "int": INT}
# Factories of a 0-d constant tensor: (shape arguments, value arguments) they take positionally.
CONSTANT_FACTORIES = {
    "torch.tensor": (0, 1), "torch.as_tensor": (0, 1), "torch.scalar_tensor": (0, 1),
    "torch.ones": (1, 0), "torch.zeros": (1, 0), "torch.full": (1, 1),
}


def _nonzero_constant(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Integer | cst.Float) and float(node.value.replace("_", "")) != 0


def is_config_value(name: str) -> bool:
    """Attribute reads of a configuration object (`self.config.x`, `config.x`) hold Python values."""
    parts = name.split(".")
    return any(part == "config" or part.endswith("_config") for part in parts[:-1])


def dtype_assumption(a: ArmInfo, b: ArmInfo, describe: str, known_float: set[str] | frozenset[str] = frozenset()) -> str | None:
    """None when arms `a` and `b` provably share shape and dtype; else the assumption that makes
    them agree (for an unsafe fix's message). Leaves in `known_float` are floating-point tensors,
    whose dtype no Python number changes."""
    if a.leaves != b.leaves or a.fixed != b.fixed:
        return f"assumes {describe} have the same shape and dtype"
    if a.category == b.category or (a.leaves and a.leaves <= known_float and not a.fixed):
        return None
    higher = max(a.category, b.category)
    if higher == INT:
        return f"assumes {describe} are not bool tensors"
    return f"assumes {describe} are floating-point tensors"


def nodes_in(node: cst.CSTNode) -> list[cst.CSTNode]:
    """`node` and every node under it, parents before their children."""
    found = [node]
    for child in node.children:
        found += nodes_in(child)
    return found


def names_in(node: cst.CSTNode) -> set[str]:
    """Every plain name read in `node` (attribute chains give their root)."""
    found: set[str] = set()

    class Visitor(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            found.add(name.value)

        def visit_Attribute(self, attribute: cst.Attribute) -> bool:
            attribute.value.visit(self)
            return False

        def visit_Arg(self, arg: cst.Arg) -> bool:
            arg.value.visit(self)
            return False

    node.visit(Visitor())
    return found
