"""Local names proven to hold floating-point tensors (or Python floats), for safe fixes.

`torch.where(c, x * 3, x / 3)` is the same as the `if` it replaces only when Python numbers do
not change `x`'s dtype, that is when `x` is floating-point. A name is proven floating when every
assignment to it in the function (and it is no parameter) is one of:

- a float factory: `torch.randn/rand/zeros/ones/empty(...)` without a dtype (the default dtype is
  always floating) or with a floating `dtype=`, `torch.randn_like/rand_like` (integer inputs raise);
- a conversion: `.float()`, `.half()`, `.double()`, `.bfloat16()`, `.to(torch.float32)`;
- an op with no integer result: `softmax`, `log_softmax`, `layer_norm`, `sigmoid`, `exp`, `sqrt`...
  (they raise on integer tensors or promote them to the default float dtype), true division `/`,
  and the reductions `.mean()`, `.std()`, `.var()`, `.norm()` (they raise on integer tensors);
- arithmetic with a float literal (`x * 0.5` promotes integer tensors to floating) or between
  names already proven floating;
- the output of a submodule the class builds as `nn.Linear`, `nn.Conv*d`, `nn.LayerNorm`,
  `nn.Embedding` (their weights are floating: integer parameters cannot be created).

Anything else (a parameter, an unknown call, an augmented assignment) proves nothing.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import cast

import libcst as cst

from graphmend_bot.rewrite.branching import LocalFacts
from graphmend_bot.rewrite.context import FixContext
from graphmend_bot.rewrite.purity import dotted

FLOAT_DTYPES = frozenset({
    "float", "float16", "float32", "float64", "half", "double", "bfloat16",
})
DEFAULT_FLOAT_FACTORIES = frozenset({"randn", "rand", "zeros", "ones", "empty"})
FLOAT_LIKE_FACTORIES = frozenset({"randn_like", "rand_like"})
FLOAT_RESULT_OPS = frozenset({
    "softmax", "log_softmax", "layer_norm", "group_norm", "sigmoid", "exp", "log", "sqrt",
    "rsqrt", "tanh", "erf", "gelu", "silu",
})
# Methods of a floating tensor that keep it floating (checked on a receiver already proven).
FLOAT_RESULT_METHODS = frozenset({"softmax", "log_softmax", "sigmoid", "exp", "sqrt", "rsqrt", "tanh", "clamp"})
FLOAT_CONVERSIONS = frozenset({"float", "half", "double", "bfloat16"})
# Reductions that raise on integer tensors ("Input dtype must be either a floating point or complex
# dtype", torch 2.13): their result is floating whatever they are called on.
FLOAT_ONLY_REDUCTIONS = frozenset({"mean", "std", "var", "norm"})
FLOAT_MODULES = frozenset({
    "Linear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "LayerNorm",
    "Embedding", "GroupNorm",
})
TORCH_PREFIXES = ("torch.", "F.", "nn.functional.", "torch.nn.functional.")


def floating_names(ctx: FixContext, facts: LocalFacts, function: cst.FunctionDef | None) -> set[str]:
    """Names of `function` proven floating (`h = self.proj(x); h = h * 2` in a loop)."""
    if function is None:
        return set()
    key = ("floating names", id(function))  # one function's facts, asked by each of its findings
    if key not in ctx.memo:
        ctx.memo[key] = frozenset(_floating_names(ctx, facts, function))
    return set(cast(frozenset[str], ctx.memo[key]))


def _floating_names(ctx: FixContext, facts: LocalFacts, function: cst.FunctionDef) -> set[str]:
    modules = _float_submodules(ctx, function)
    candidates = {
        name: values
        for name, values in facts.assignments.items()
        if name not in facts.params and values and all(value is not None for value in values)
    }
    # The greatest fixpoint: assume every candidate floating, drop those with an assignment that is
    # not. Sound by induction over execution: each assignment reads names bound before it.
    proven = set(candidates)
    changed = True
    while changed:
        changed = False
        for name, values in candidates.items():
            if name in proven and not all(
                _is_floating(value, proven, modules) for value in values if value is not None
            ):
                proven.discard(name)
                changed = True
    return proven


def _is_floating(node: cst.BaseExpression, proven: set[str], modules: set[str]) -> bool:
    if isinstance(node, cst.Name):
        return node.value in proven
    if isinstance(node, cst.Float):
        return True
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return _is_floating(node.expression, proven, modules)
    if isinstance(node, cst.IfExp):
        return _is_floating(node.body, proven, modules) and _is_floating(node.orelse, proven, modules)
    if isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, cst.Divide):
            return True
        if isinstance(node.operator, cst.MatrixMultiply | cst.BitAnd | cst.BitOr | cst.BitXor):
            return False
        if isinstance(node.operator, cst.LeftShift | cst.RightShift):
            return False
        return _is_floating(node.left, proven, modules) or _is_floating(node.right, proven, modules)
    if isinstance(node, cst.Call):
        return _floating_call(node, proven, modules)
    return False


def _floating_call(node: cst.Call, proven: set[str], modules: set[str]) -> bool:
    func = node.func
    dtype = next((arg.value for arg in node.args if arg.keyword and arg.keyword.value == "dtype"), None)
    name = dotted(func)
    if name is not None and name.startswith("self.") and name.count(".") == 1:
        return name[len("self."):] in modules
    if name is not None and name.startswith(TORCH_PREFIXES):
        if dtype is not None:
            return _float_dtype(dtype)
        leaf = name.rsplit(".", 1)[-1]
        return leaf in DEFAULT_FLOAT_FACTORIES or leaf in FLOAT_LIKE_FACTORIES or leaf in FLOAT_RESULT_OPS
    if not isinstance(func, cst.Attribute):
        return False
    method = func.attr.value
    if method in FLOAT_CONVERSIONS:
        return not node.args
    if method in FLOAT_ONLY_REDUCTIONS:
        return dtype is None
    if method == "to":
        if dtype is not None:
            return _float_dtype(dtype)
        return any(arg.keyword is None and _float_dtype(arg.value) for arg in node.args)
    return method in FLOAT_RESULT_METHODS and dtype is None and _is_floating(func.value, proven, modules)


def _float_dtype(node: cst.BaseExpression) -> bool:
    name = dotted(node)
    return name is not None and name.startswith("torch.") and name[len("torch."):] in FLOAT_DTYPES


def _float_submodules(ctx: FixContext, function: cst.FunctionDef) -> set[str]:
    """`self.proj = nn.Linear(...)` anywhere in the enclosing class: names of float layers."""
    owner = next((node for node in ctx.ancestors(function) if isinstance(node, cst.ClassDef)), None)
    if owner is None:
        return set()
    key = ("float submodules", id(owner))  # the class's, the same for each of its findings
    if key not in ctx.memo:
        ctx.memo[key] = frozenset(_class_float_submodules(owner))
    return set(cast(frozenset[str], ctx.memo[key]))


def _class_float_submodules(owner: cst.ClassDef) -> set[str]:
    found: set[str] = set()
    assigned: dict[str, int] = {}

    class Collector(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                name = dotted(target.target)
                if name is None or not name.startswith("self.") or name.count(".") != 1:
                    continue
                attribute = name[len("self."):]
                assigned[attribute] = assigned.get(attribute, 0) + 1
                if isinstance(node.value, cst.Call):
                    built = dotted(node.value.func) or ""
                    if built.rsplit(".", 1)[-1] in FLOAT_MODULES and built.startswith(("nn.", "torch.nn.")):
                        found.add(attribute)

    owner.body.visit(Collector())
    # An attribute assigned anything else as well may hold that other thing when forward runs.
    return {name for name in found if assigned[name] == 1}


def floating_where_read(ctx: FixContext, names: set[str], at: cst.CSTNode, proven: set[str]) -> set[str]:
    """Names among `names` whose last assignment before the statement holding `at` is floating.

    Walks back through the statements before it, then out of enclosing `if`/`with`/`try` blocks;
    a statement that binds the name in any other way, a loop or the function's start ends the
    search without a proof (a loop body may rebind the name after the branch)."""
    statement = next(
        (node for node in (at, *ctx.ancestors(at)) if isinstance(node, cst.BaseCompoundStatement | cst.SimpleStatementLine)),
        None,
    )
    found: set[str] = set()
    for name in names - proven:
        if statement is not None and _reaching_floating(ctx, name, statement, proven):
            found.add(name)
    return found


def _reaching_floating(ctx: FixContext, name: str, statement: cst.CSTNode, proven: set[str]) -> bool:
    value = reaching_assignment(ctx, name, statement)
    return value is not None and (_is_floating(value, proven, set()) or _is_floating_module_call(ctx, value, statement))


def reaching_assignment(ctx: FixContext, name: str, statement: cst.CSTNode) -> cst.BaseExpression | None:
    """The value of the nearest plain assignment `name = value` before `statement` (a statement),
    walking back through its block, then out of enclosing `if`/`with`/`try` blocks; None where
    a statement binds the name in any other way, or a loop or the function's start comes first
    (a loop body may rebind the name after `statement`)."""
    current = statement
    while True:
        block = ctx.parent(current)
        if not isinstance(block, cst.IndentedBlock):
            return None
        positions, binders = _block_bindings(ctx, block)
        index = positions.get(id(current))
        if index is None:
            return None
        rows = binders.get(name, [])
        earlier = bisect_left(rows, index)
        if earlier:  # the nearest statement before that binds the name decides
            return _simple_assignment(block.body[rows[earlier - 1]], name)
        owner = ctx.parent(block)
        if isinstance(owner, cst.Else):
            owner = ctx.parent(owner)
        if not isinstance(owner, cst.If | cst.With | cst.Try):
            return None  # a loop, a function start, a class
        chain_head = ctx.parent(owner)
        while isinstance(chain_head, cst.If) and chain_head.orelse is owner:
            owner, chain_head = chain_head, ctx.parent(chain_head)  # an `elif` sits in its chain's first `if`
        current = owner


def _block_bindings(ctx: FixContext, block: cst.IndentedBlock) -> tuple[dict[int, int], dict[str, list[int]]]:
    """Each statement's index in `block` (by id), and for each name the indexes of the statements
    binding it, in order. Once per block and fix context: every finding below it walks back
    through the statements before its own, which was quadratic in a long function."""
    key = ("block bindings", id(block))
    if key not in ctx.memo:
        positions = {id(node): index for index, node in enumerate(block.body)}
        binders: dict[str, list[int]] = {}
        for index, node in enumerate(block.body):
            for name in _bound_names(node):
                binders.setdefault(name, []).append(index)
        ctx.memo[key] = (positions, binders)
    return cast(tuple[dict[int, int], dict[str, list[int]]], ctx.memo[key])


def _is_floating_module_call(ctx: FixContext, value: cst.BaseExpression, statement: cst.CSTNode) -> bool:
    function = next((node for node in ctx.ancestors(statement) if isinstance(node, cst.FunctionDef)), None)
    return function is not None and _is_floating(value, set(), _float_submodules(ctx, function))


def _simple_assignment(statement: cst.CSTNode, name: str) -> cst.BaseExpression | None:
    """The value of `name = value` when `statement` is exactly that."""
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        small = statement.body[0]
        if (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
            and small.targets[0].target.value == name
        ):
            return small.value
    return None


def _bound_names(node: cst.CSTNode) -> set[str]:
    """Every name `node` binds: assignment, augmented assignment, `for`, `as`, `:=`, `del`."""
    bound: set[str] = set()

    class Collector(cst.CSTVisitor):
        def visit_AssignTarget(self, target: cst.AssignTarget) -> None:
            bound.update(_target_names(target.target))

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            bound.update(_target_names(node.target))

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            bound.update(_target_names(node.target))

        def visit_For(self, node: cst.For) -> None:
            bound.update(_target_names(node.target))

        def visit_AsName(self, node: cst.AsName) -> None:
            bound.update(_target_names(node.name))

        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            bound.update(_target_names(node.target))

        def visit_Del(self, node: cst.Del) -> None:
            bound.update(_target_names(node.target))

        def visit_Global(self, node: cst.Global) -> None:
            bound.update(item.name.value for item in node.names)

        def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
            bound.update(item.name.value for item in node.names)

    node.visit(Collector())
    return bound


def _target_names(target: cst.CSTNode) -> set[str]:
    names: set[str] = set()

    class Collector(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            names.add(node.value)

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            return False  # `self.x = ...` binds no local

        def visit_Subscript(self, node: cst.Subscript) -> bool:
            return False

    target.visit(Collector())
    return names
