"""Proof that the two branches of a `torch.cond` return alike outputs.

torch.cond traces both branches, in eager calls too, and raises unless they return the same
structure of tensors with the same dtype, shape and device ("expected same dtype" on torch 2.13):
a rewrite over `return torch.tensor(0, device=d)` (int64) and `return a / b` (float) made every call
raise, whichever branch the `if` would have taken. So the rewrite is written only when each pair of
outputs is provably alike: both are *like* one value read before the branch, where `like(v)` holds
the dtype, shape and device of `v`:

- `v` itself (a name or attribute chain), `v.clone()`, `v.contiguous()`, `v.detach()`, `-v`;
- `torch.zeros_like(v)` and its kin without a `dtype=`/`device=`;
- `torch.zeros(shape, dtype=d, device=v)`, `ones`, `empty`, `full`: alike when shape, dtype and
  device are written the same (diffusers' HunyuanVideo mask switch);
- for a `v` proven floating-point (rewrite/dtype_facts.py): arithmetic with Python numbers or with
  values like `v`, elementwise functions (`torch.tanh(v)`, `F.gelu(v)`, `v.clamp(min=0)`,
  `softmax(v, -1)`), and the class's own submodules that keep shape and dtype (`nn.LayerNorm`,
  activations, dropout, `nn.Linear(n, n)` with one literal width). On an integer `v` these would
  change the dtype (`v * 0.5`) or raise, so without the proof nothing but the first group counts.

Anything else (a matrix product, an unknown module or function, a constant, a tuple) proves
nothing, and the rewrite is refused with the two outputs named.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import libcst as cst

from graphmend_bot.rewrite.branching import LocalFacts, enclosing_function
from graphmend_bot.rewrite.context import FixContext, Rejected
from graphmend_bot.rewrite.dtype_facts import floating_names, floating_where_read
from graphmend_bot.rewrite.purity import KEEP_DTYPE, SHAPE_ATTRIBUTES, TO_FLOAT, dotted, names_in

SAME_VALUE_METHODS = frozenset({"clone", "contiguous", "detach"})
LIKE_FACTORIES = frozenset({"zeros_like", "ones_like", "empty_like", "full_like"})
# Elementwise or row-wise functions that keep a floating tensor's shape and dtype.
FLOATING_KEEPERS = (KEEP_DTYPE | TO_FLOAT | {"softmax", "log_softmax", "normalize", "dropout", "layer_norm",
                                              "rand_like", "randn_like"}) - {"where", "lerp", "add", "sub",
                                                                            "subtract", "mul", "multiply",
                                                                            "minimum", "maximum", "fmin", "fmax"}
# Submodules whose output has their input's shape and (floating) dtype.
SHAPE_KEEPING_MODULES = frozenset({
    "LayerNorm", "GroupNorm", "RMSNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d",
    "InstanceNorm2d", "InstanceNorm3d", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "Identity", "ReLU",
    "GELU", "SiLU", "Tanh", "Sigmoid", "LeakyReLU", "ELU", "Softplus", "Mish", "Hardswish", "Softmax",
})
TORCH_PREFIXES = ("torch.", "F.", "nn.functional.", "torch.nn.functional.")
FACTORIES = frozenset({"torch.zeros", "torch.ones", "torch.empty", "torch.full"})


class AlikeOutputs:
    """Which value each branch output is like, for the branch at `statement`."""

    def __init__(self, ctx: FixContext, facts: LocalFacts, statement: cst.CSTNode) -> None:
        function = enclosing_function(ctx, statement)
        proven = floating_names(ctx, facts, function)
        self.floating = proven | floating_where_read(ctx, names_in(statement), statement, proven)
        self.modules = _shape_keeping_submodules(function, ctx)
        self.scalars = facts.python_scalars()
        self.ctx = ctx

    def require_alike(self, pairs: Sequence[tuple[cst.BaseExpression, cst.BaseExpression]],
                      environments: tuple[Mapping[str, str | None], Mapping[str, str | None]] = ({}, {}),
                      shown: Sequence[str] = ()) -> None:
        """Raise Rejected unless each (true, false) output pair is like one value. `environments`
        map names each branch binds to what they are like (None: unknown); `shown` names each pair
        in the message (default: the two expressions)."""
        for index, (true_value, false_value) in enumerate(pairs):
            first, second = self.like(true_value, environments[0]), self.like(false_value, environments[1])
            if first is None or first != second:
                what = shown[index] if index < len(shown) else " and ".join(
                    f"`{self.ctx.code_for(v).strip()}`" for v in (true_value, false_value))
                raise Rejected(f"cannot prove both branches return the same dtype, shape and device ({what}): "
                               "torch.cond raises otherwise, in eager calls too")

    def bind(self, body: Sequence[cst.BaseStatement]) -> dict[str, str | None]:
        """What each name a branch's `name = value` statements bind is like, in order."""
        environment: dict[str, str | None] = {}
        for statement in body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if isinstance(small, cst.Assign):
                    value = self.like(small.value, environment)
                    for target in small.targets:
                        if isinstance(target.target, cst.Name):
                            environment[target.target.value] = value
                        else:
                            for name in names_in(target.target):
                                environment[name] = None
        return environment

    def like(self, node: cst.BaseExpression, environment: Mapping[str, str | None]) -> str | None:
        """The value read before the branch that `node` has the dtype, shape and device of, or None."""
        if isinstance(node, cst.Name):
            if node.value in environment:
                return environment[node.value]
            return None if node.value in self.scalars or node.value in ("True", "False", "None") else node.value
        if isinstance(node, cst.Attribute):
            return None if node.attr.value in SHAPE_ATTRIBUTES else dotted(node)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus | cst.Plus):
            return self.like(node.expression, environment)
        if isinstance(node, cst.BinaryOperation):
            return self._arithmetic(node, environment)
        if isinstance(node, cst.Call):
            return self._call(node, environment)
        return None

    def _floating(self, source: str | None) -> str | None:
        return source if source is not None and source in self.floating else None

    def _number(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            return self._number(node.expression)
        return isinstance(node, cst.Integer | cst.Float) or (isinstance(node, cst.Name) and node.value in self.scalars)

    def _arithmetic(self, node: cst.BinaryOperation, environment: Mapping[str, str | None]) -> str | None:
        if not isinstance(node.operator, cst.Add | cst.Subtract | cst.Multiply | cst.Divide | cst.Power):
            return None
        if self._number(node.left):
            return self._floating(self.like(node.right, environment))
        if self._number(node.right):
            return self._floating(self.like(node.left, environment))
        left, right = self.like(node.left, environment), self.like(node.right, environment)
        return self._floating(left) if left == right else None

    def _call(self, node: cst.Call, environment: Mapping[str, str | None]) -> str | None:
        func = node.func
        factory = _factory_key(self.ctx, node)
        if factory is not None:
            return factory
        positional = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
        keywords = {arg.keyword.value for arg in node.args if arg.keyword is not None}
        if any(arg.star for arg in node.args) or keywords & {"dtype", "device", "layout", "out", "memory_format"}:
            return None
        options = [arg.value for arg in node.args if arg.keyword is not None]
        if not all(self._number(value) or _constant(value) for value in options):
            return None  # a tensor option (`min=other`) may broadcast or promote
        name = dotted(func) or ""
        if isinstance(func, cst.Attribute) and not name.startswith(TORCH_PREFIXES):
            method = func.attr.value
            receiver = func.value
            if name.startswith("self.") and name.count(".") == 1 and len(positional) == 1 and not keywords:
                return self._floating(self.like(positional[0], environment)) if method in self.modules else None
            if method in SAME_VALUE_METHODS and not node.args:
                return self.like(receiver, environment)
            if method in FLOATING_KEEPERS and all(self._number(value) for value in positional):
                return self._floating(self.like(receiver, environment))
            return None
        function = next((name[len(prefix):] for prefix in TORCH_PREFIXES if name.startswith(prefix)), None)
        if function is None or "." in function or not positional:
            return None
        if not all(self._number(value) for value in positional[1:]):
            return None  # a second tensor operand may broadcast or promote
        operand = self.like(positional[0], environment)
        if function in LIKE_FACTORIES:
            return operand
        return self._floating(operand) if function in FLOATING_KEEPERS else None


def _factory_key(ctx: FixContext, node: cst.Call) -> str | None:
    """`torch.zeros(shape, dtype=d, device=v)` and its kin (`ones`, `empty`, `full` without the fill
    value): a key naming the shape, dtype and device as written, so two factories of one shape,
    dtype and device are alike whatever they fill."""
    name = dotted(node.func) or ""
    if name not in FACTORIES or any(arg.star for arg in node.args):
        return None
    keywords = {arg.keyword.value: ctx.code_for(arg.value).strip() for arg in node.args if arg.keyword is not None}
    positional = [ctx.code_for(arg.value).strip() for arg in node.args if arg.keyword is None]
    if name == "torch.full":
        positional = positional[:1]  # the fill value is not part of the shape
        keywords.pop("fill_value", None)
    if set(keywords) != {"dtype", "device"} or len(positional) != 1:
        return None  # the default dtype or device may differ between two calls' contexts; one shape argument
    return f"<factory {positional[0]} dtype={keywords['dtype']} device={keywords['device']}>"


def _constant(node: cst.BaseExpression) -> bool:
    """`True`, `False`, `None` or a string: an option that is no tensor (`inplace=False`, `approximate="tanh"`)."""
    return isinstance(node, cst.SimpleString) or (isinstance(node, cst.Name) and node.value in ("True", "False", "None"))


def _shape_keeping_submodules(function: cst.FunctionDef | None, ctx: FixContext) -> frozenset[str]:
    """`self.norm = nn.LayerNorm(d)`, `self.proj = nn.Linear(4, 4)` in the enclosing class, each
    attribute assigned once: submodules whose output is shaped like their input."""
    owner = next((node for node in ctx.ancestors(function) if isinstance(node, cst.ClassDef)), None) if function else None
    if owner is None:
        return frozenset()
    built: dict[str, list[bool]] = {}

    class Collector(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                name = dotted(target.target)
                if name is not None and name.startswith("self.") and name.count(".") == 1:
                    built.setdefault(name[len("self."):], []).append(_keeps_shape(node.value))

    owner.body.visit(Collector())
    return frozenset(name for name, kinds in built.items() if kinds == [True])


def _keeps_shape(value: cst.BaseExpression) -> bool:
    if not isinstance(value, cst.Call):
        return False
    built = dotted(value.func) or ""
    if not built.startswith(("nn.", "torch.nn.")):
        return False
    kind = built.rsplit(".", 1)[-1]
    if kind == "Linear":
        widths = [arg.value for arg in value.args[:2] if arg.keyword is None]
        return (len(widths) == 2 and all(isinstance(w, cst.Integer) for w in widths)
                and cst.ensure_type(widths[0], cst.Integer).evaluated_value == cst.ensure_type(widths[1], cst.Integer).evaluated_value)
    return kind in SHAPE_KEEPING_MODULES
