"""Scalar extraction (`.item()`, `int(t)`, `float(t)`) whose value only feeds tensor arithmetic.

`s = x.abs().max().item(); y = x / s` becomes `s = x.abs().max().detach(); y = x / s`: the value stays a
0-dim tensor, so Dynamo keeps it in the graph instead of copying it to Python.

When is that bit-identical? A Python number and a 0-dim tensor promote differently: an int
tensor times a Python float is float32, times a 0-dim float64 tensor it is float64, and two 0-dim
operands promote by dtype. The rewrite is therefore offered only when every use of the value is
an arithmetic operand (+ - * / // %) next to the *same tensor it was extracted from* (`x` and
`x`-derived views), so the 0-dim tensor has exactly the dtype of the other operand: the result
dtype is that dtype either way, and the operand value is the same number (an extracted value is
exactly representable in its own dtype). `**` is excluded: PyTorch special-cases Python
exponents (x ** 2.0 is x * x, x ** 0.5 is sqrt); so is `value / x` (PyTorch computes a Python
number divided by a tensor as number * x.reciprocal(), rounding twice).

- `.item()` of a dtype-preserving derivation (max, min, amax, amin, mean, median, abs, neg,
  indexing, views, clone/detach): identical, the fix assumes nothing, except where the value is
  the divisor of `x / value` or `x // value`. On CUDA a tensor divided by a Python number (a CPU
  scalar) is computed as `x * (1 / value)`, which "may lose one bit of precision"
  (aten/src/ATen/native/cuda/BinaryDivTrueKernel.cu and BinaryDivFloorKernel.cu, taken when
  `iter.is_cpu_scalar(2)`); divided by the 0-dim CUDA tensor kept, it is a true division. So those
  fixes are unsafe (identical on CPU, whose div kernels divide either way). + - * % apply one
  functor to a CPU scalar and to a tensor alike (Loops.cuh `gpu_kernel_with_scalars`,
  `opmath_symmetric_gpu_kernel_with_scalars`; the ufunc add functors), so they stay safe.

What `.item()` also did, the replacement does too. It detached the value: gradients never flowed
through it, so the tensor kept is `.detach()`ed (as clamp_bounds.py does), or the divisor of
`x / x.max()` would add its own gradient. It copied the value: when the tensor kept is a view of
the root (indexing, `view`, `flatten`, `detach`...: no reduction or other computation that makes a
new tensor), an in-place update of the root before the value is used (`x.mul_(2)`, `x += 1`,
`x[0] = 0`, a module with `inplace=True`) would change it, so the view is also `.clone()`d.
Finding every in-place update instead would miss the ones made through aliases or callees; a
0-dim clone costs nothing in the graph. `int(t)` keeps `.trunc()`, itself a new tensor.
- `.item()` of sum/prod/norm-like reductions (int32 sums are int64: a 0-dim int32 `x` would
  promote), `int(t)` (a bool tensor would change type; float values are truncated, kept as
  `.trunc()`), `float(t)` (an integer tensor would stay integer): the fix states that assumption.
Fix safety: GM301's rule docs (`graphmend rule GM301`).
Anything else (the value reaches a branch, a shape, a call, a container) stays a report.
"""

from __future__ import annotations

from typing import cast

import libcst as cst

from graphmend_bot.findings import Edit, Finding, Fix
from graphmend_bot.rewrite.aliasing import shares_storage
from graphmend_bot.rewrite.branching import LocalFacts
from graphmend_bot.rewrite.context import FixContext
from graphmend_bot.rewrite.well_typed import TypeEvidence

# Same dtype as the input for every dtype (or an error for every dtype the original also rejects).
DTYPE_PRESERVING = frozenset({
    "max", "min", "amax", "amin", "mean", "median", "nanmedian", "abs", "neg", "clone", "detach",
    "flatten", "reshape", "view", "squeeze", "unsqueeze", "contiguous", "t", "transpose", "permute",
    "ravel",
})
# Same dtype for floating inputs; integer and bool inputs promote to int64.
FLOAT_PRESERVING = frozenset({"sum", "prod", "nansum", "cumsum", "cumprod", "logsumexp"})
ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo)
# Divisions CUDA computes by a reciprocal when the divisor is a Python number (module docstring).
RECIPROCAL_ON_CUDA = (cst.Divide, cst.FloorDivide)
CUDA_DIVISION = (
    "on CUDA, dividing by a Python number multiplies by its reciprocal and dividing by a tensor divides: "
    "the result may differ in the last bit (identical on CPU)"
)


def build_fix(ctx: FixContext, finding: Finding) -> Fix | None:
    call = ctx.node_at(finding)
    if not isinstance(call, cst.Call):
        return None
    extraction = _extraction(call)
    if extraction is None:
        return None
    kind, tensor = extraction
    root = _root(tensor)
    if root is None:
        return None
    root_name, ops = root
    function = _enclosing_function(ctx, call)
    if function is None or _reassigned(ctx, function, root_name, call):
        return None
    if TypeEvidence(ctx, LocalFacts.of(ctx, function), call).foreign(cst.Name(root_name)) is not None:
        return None  # a numpy array's `.item()`: keeping a numpy scalar would change promotion
    uses = _uses(ctx, function, call)
    if uses is None or not uses:
        return None
    if not all(_same_root_operand(value, operation, root_name) for value, operation in uses):
        return None
    replacement, assumption = _replacement(ctx, kind, tensor, ops)
    title = f"Keep {_describe(kind)} a tensor (`{replacement}`): no copy to Python"
    edits = (Edit(replacement, *ctx.span(call)),)
    divides = any(isinstance(operation.operator, RECIPROCAL_ON_CUDA) and operation.right is value
                  for value, operation in uses)  # the divisor: `value // x` takes CUDA's general kernel
    assumptions = tuple(a for a in (assumption, CUDA_DIVISION if divides else None) if a is not None)
    if not assumptions:
        return Fix.of(f"{title}; identical result and gradients: the value only meets the tensor it came from, "
                      "detached and copied as `.item()` did", edits)
    return Fix.of(title, edits, assumptions, wording="unsafe-clause")


def _describe(kind: str) -> str:
    return "`.item()`'s value" if kind == "item" else f"`{kind}(...)`'s value"


def _extraction(call: cst.Call) -> tuple[str, cst.BaseExpression] | None:
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "item" and not call.args:
        return "item", func.value
    if isinstance(func, cst.Name) and func.value in ("int", "float") and len(call.args) == 1:
        arg = call.args[0]
        if arg.keyword is None and not arg.star:
            return func.value, arg.value
    return None


def _root(expression: cst.BaseExpression) -> tuple[str, list[str]] | None:
    """The name a value is derived from and the methods applied on the way (`x.abs().max()`)."""
    ops: list[str] = []
    node: cst.BaseExpression = expression
    while True:
        if isinstance(node, cst.Name):
            return node.value, ops
        if isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            method = node.func.attr.value
            if method not in DTYPE_PRESERVING | FLOAT_PRESERVING:
                return None
            if any(isinstance(arg.value, cst.Call) or (arg.keyword and arg.keyword.value == "dtype") for arg in node.args):
                return None
            ops.append(method)
            node = node.func.value
        else:
            return None


def _enclosing_function(ctx: FixContext, node: cst.CSTNode) -> cst.FunctionDef | None:
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, cst.Lambda | cst.ListComp | cst.SetComp | cst.DictComp | cst.GeneratorExp):
            return None
        if isinstance(ancestor, cst.FunctionDef):
            return ancestor
    return None


def _names(ctx: FixContext, node: cst.CSTNode, name: str) -> list[cst.Name]:
    """The `Name` nodes spelled `name` under `node`, in source order. `node` (a function's body or
    parameters) is walked once per fix context: every `.item()` in the function asks."""
    key = ("names under", id(node))
    if key not in ctx.memo:
        by_value: dict[str, list[cst.Name]] = {}

        class Collector(cst.CSTVisitor):
            def visit_Name(self, visited: cst.Name) -> None:
                by_value.setdefault(visited.value, []).append(visited)

        node.visit(Collector())
        ctx.memo[key] = by_value
    return list(cast(dict[str, list[cst.Name]], ctx.memo[key]).get(name, []))


def _stores(ctx: FixContext, function: cst.FunctionDef, name: str) -> list[cst.Name]:
    """The `Name` nodes in the function's body that bind `name`, once per name and fix context."""
    key = ("stores", id(function), name)
    if key not in ctx.memo:
        ctx.memo[key] = [n for n in _names(ctx, function.body, name) if _is_store(ctx, n)]
    return list(cast(list[cst.Name], ctx.memo[key]))


def _is_store(ctx: FixContext, name: cst.Name) -> bool:
    parent = ctx.parent(name)
    if isinstance(parent, cst.AssignTarget | cst.AugAssign | cst.AnnAssign | cst.For | cst.CompFor | cst.AsName):
        return getattr(parent, "target", None) is name or getattr(parent, "name", None) is name
    if isinstance(parent, cst.NamedExpr) and parent.target is name:
        return True
    if isinstance(parent, cst.Tuple | cst.List | cst.Element):
        return _in_target(ctx, parent)
    return bool(isinstance(parent, cst.Param | cst.Global | cst.Nonlocal | cst.NameItem))


def _in_target(ctx: FixContext, node: cst.CSTNode) -> bool:
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, cst.AssignTarget | cst.For | cst.CompFor | cst.WithItem):
            return True
        if isinstance(ancestor, cst.BaseStatement | cst.BaseSmallStatement):
            return False
    return False


def _reassigned(ctx: FixContext, function: cst.FunctionDef, root: str, call: cst.Call) -> bool:
    """`root` is bound more than once in the function (it could change dtype between uses)."""
    stores = _stores(ctx, function, root)
    if not stores:
        return False
    is_parameter = bool(_names(ctx, function.params, root))
    if is_parameter or len(stores) > 1:
        return True
    return ctx.position(stores[0]).start.line >= ctx.position(call).start.line


Use = tuple[cst.BaseExpression, cst.BinaryOperation]


def _uses(ctx: FixContext, function: cst.FunctionDef, call: cst.Call) -> list[Use] | None:
    """(operand, operation) for each operation the extracted value feeds; None when it feeds
    anything else."""
    parent = ctx.parent(call)
    if isinstance(parent, cst.BinaryOperation):
        return [(call, parent)]
    if not isinstance(parent, cst.Assign) or len(parent.targets) != 1:
        return None
    target = parent.targets[0].target
    if not isinstance(target, cst.Name):
        return None
    names = _names(ctx, function.body, target.value)
    stores = _stores(ctx, function, target.value)
    if stores != [target] or _names(ctx, function.params, target.value):
        return None
    assigned_at = ctx.position(parent).end
    uses: list[Use] = []
    for name in names:
        if name is target:
            continue
        where = ctx.position(name).start
        if (where.line, where.column) < (assigned_at.line, assigned_at.column):
            return None
        if _enclosing_function(ctx, name) is not function:
            return None
        operation = ctx.parent(name)
        if not isinstance(operation, cst.BinaryOperation) or name.lpar:
            return None
        uses.append((name, operation))
    return uses


def _same_root_operand(value: cst.BaseExpression, operation: cst.BinaryOperation, root: str) -> bool:
    """`value` meets, in + - * / // %, a tensor derived from `root` with its dtype unchanged."""
    if not isinstance(operation.operator, ARITHMETIC):
        return False
    if isinstance(operation.operator, cst.Divide) and operation.left is value:
        return False  # `number / tensor` is computed as number * reciprocal(tensor): two roundings
    other = operation.right if operation.left is value else operation.left
    derived = _root(other)
    return derived is not None and derived[0] == root and not set(derived[1]) & FLOAT_PRESERVING


def _replacement(
    ctx: FixContext, kind: str, tensor: cst.BaseExpression, ops: list[str]
) -> tuple[str, str | None]:
    """The tensor expression that replaces the extraction, and what it assumes (None: nothing)."""
    code = ctx.code_for(tensor)
    atomic = isinstance(tensor, cst.Name | cst.Attribute | cst.Call | cst.Subscript) or bool(tensor.lpar)
    detached = f"{code if atomic else f'({code})'}.detach()"  # `.item()` detached the value
    if kind == "int":
        return f"{detached}.trunc()", "a bool tensor would change the result's dtype (int(True) is a Python int)"
    kept = f"{detached}.clone()" if shares_storage(tensor) else detached  # `.item()` copied it
    if kind == "float":
        return kept, "identical for floating tensors; an integer tensor would keep an integer dtype"
    promoting = sorted(set(ops) & FLOAT_PRESERVING)
    if promoting:
        return kept, f"`{promoting[0]}()` of an integer tensor is int64, which a 0-dim operand would promote to"
    return kept, None
