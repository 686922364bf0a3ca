"""A clamp bound taken from a tensor through Python: `b = max(t.min().item(), c)` then
`x.to(torch.float).clamp_(min=b)` (MONAI's `compute_importance_map`).

`.item()` breaks the graph only to compare the value with a Python number and hand it back to
torch as a bound. The bound can stay a tensor: `b = t.min().detach().to(torch.float).clamp(min=c)`.

Why that is bit-identical (measured over float16/bfloat16/float32/float64/int/bool `t`, NaN, inf,
ties, numbers next to the float32 rounding of `c`, in tests/rewrite/test_clamp_bounds.py):
- Python's `max(v, c)` returns `v` unless `c > v`: a NaN `v` is kept; `clamp(min=c)` keeps a NaN
  too, and otherwise gives the larger of the two. `min(v, c)` and `clamp(max=c)` likewise.
- Python compares in float64 and clamp then rounds the bound to the clamped tensor's dtype;
  the rewrite rounds `v` and `c` to that dtype first and compares there. Rounding is monotone, so
  `round(max(v, c)) == max(round(v), round(c))`: the same bound either way. That needs the
  clamped tensor's dtype to be known: it must be an explicit float32 or float64 conversion
  (`.to(torch.float)`, `.float()`, `.double()`), whose range holds `c`.
- `.item()` detached the value; `.detach()` keeps the bound out of autograd.

Preconditions, else no fix: `v` is `.item()` of a full reduction (`torch.min(t)`, `t.amax()`: a 0-d
tensor, so the bound cannot broadcast the clamped tensor to another shape); `c` is a number
literal second (`max(c, v)` keeps `c` for a NaN `v`, where clamp gives NaN); `b` is assigned once
and read once, as the matching bound (`min=` for `max`) of a clamp with no other bound.
"""

from __future__ import annotations

import libcst as cst

from graphmend_bot.findings import Edit, Finding, Fix
from graphmend_bot.rewrite.branching import LocalFacts, enclosing_function
from graphmend_bot.rewrite.context import FixContext
from graphmend_bot.rewrite.purity import dotted
from graphmend_bot.rewrite.well_typed import TypeEvidence

FULL_REDUCTIONS = frozenset({"min", "max", "amin", "amax", "mean", "median", "sum", "prod"})
CLAMPS = frozenset({"clamp", "clamp_", "clip", "clip_"})
BOUND_OF = {"max": "min", "min": "max"}  # Python's max(v, c) is a lower bound
# Explicit conversions to a dtype whose range is known, with their largest finite value.
FLOAT32_MAX, FLOAT64_MAX = 3.4028234663852886e38, 1.7976931348623157e308
CONVERSION_DTYPES = {
    "torch.float": FLOAT32_MAX, "torch.float32": FLOAT32_MAX,
    "torch.float64": FLOAT64_MAX, "torch.double": FLOAT64_MAX,
}
CONVERSION_METHODS = {"float": "torch.float", "double": "torch.float64"}


def build_fix(ctx: FixContext, finding: Finding) -> Fix | None:
    item = ctx.node_at(finding)
    if not isinstance(item, cst.Call) or not isinstance(item.func, cst.Attribute) or item.func.attr.value != "item":
        return None
    reduced = item.func.value
    arg = ctx.parent(item)
    extremum = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
    if not isinstance(extremum, cst.Call) or not isinstance(extremum.func, cst.Name):
        return None
    builtin = extremum.func.value
    if builtin not in BOUND_OF or len(extremum.args) != 2 or extremum.args[0] is not arg:
        return None
    if any(a.keyword is not None or a.star for a in extremum.args):
        return None
    number = _number(extremum.args[1].value)
    assign = ctx.parent(extremum)
    function = enclosing_function(ctx, item)
    if number is None or not isinstance(assign, cst.Assign) or function is None:
        return None
    facts = LocalFacts.of(ctx, function)
    if builtin in facts.params or facts.values(builtin) or builtin in ctx.top_level_functions:
        return None  # not the builtin
    if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
        return None
    if not _full_reduction(ctx, facts, reduced):
        return None
    bound = assign.targets[0].target.value
    clamp = _single_clamp_read(ctx, function, bound, BOUND_OF[builtin])
    if clamp is None:
        return None
    dtype, largest = clamp
    if abs(number) > largest:
        return None
    tensor = ctx.code_for(reduced).strip()
    replacement = f"{tensor}.detach().to({dtype}).clamp({BOUND_OF[builtin]}={ctx.code_for(extremum.args[1].value).strip()})"
    title = (
        f"Keep the clamp bound a tensor (`{replacement}`): no copy to Python; identical bound, "
        f"since `{builtin}(v, c)` and `clamp` agree (NaN included) and rounding to `{dtype}` is monotone"
    )
    return Fix.of(title, (Edit(replacement, *ctx.span(extremum)),))


def _number(node: cst.BaseExpression) -> float | None:
    """A finite int or float literal, possibly negated."""
    sign = 1.0
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        sign, node = -1.0, node.expression
    if not isinstance(node, cst.Integer | cst.Float):
        return None
    value = sign * float(node.value.replace("_", ""))
    return value if abs(value) != float("inf") else None


def _full_reduction(ctx: FixContext, facts: LocalFacts, node: cst.BaseExpression) -> bool:
    """`torch.min(t)` or `t.min()`: a reduction over every element, so a 0-d tensor."""
    if not isinstance(node, cst.Call) or any(a.star for a in node.args):
        return False
    name = dotted(node.func)
    if name is not None and name.startswith("torch.") and name.removeprefix("torch.") in FULL_REDUCTIONS:
        return len(node.args) == 1 and node.args[0].keyword is None
    if isinstance(node.func, cst.Attribute) and node.func.attr.value in FULL_REDUCTIONS and not node.args:
        # A method: the receiver must not be shown to be numpy (`arr.min()` has no `.detach()`).
        return TypeEvidence(ctx, facts, node).foreign(node.func.value) is None
    return False


def _single_clamp_read(ctx: FixContext, function: cst.FunctionDef, name: str, keyword: str) -> tuple[str, float] | None:
    """(dtype, its largest value) when `name` is bound once and read once, as the `keyword=`
    bound of a clamp of an explicitly converted tensor, with no other bound; else None."""
    stores: list[cst.Name] = []
    reads: list[cst.Name] = []

    class Names(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            if node.value == name:
                parent = ctx.parent(node)
                stored = isinstance(parent, cst.AssignTarget | cst.AugAssign | cst.AnnAssign | cst.For | cst.Param)
                (stores if stored else reads).append(node)

    function.visit(Names())
    if len(stores) != 1 or len(reads) != 1:
        return None
    arg = ctx.parent(reads[0])
    clamp = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
    if not isinstance(arg, cst.Arg) or arg.keyword is None or arg.keyword.value != keyword or not isinstance(clamp, cst.Call):
        return None
    func = clamp.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in CLAMPS:
        return None
    others = [a for a in clamp.args if a is not arg]
    if dotted(func.value) == "torch":  # torch.clamp_(x, min=b)
        if len(others) != 1 or others[0].keyword is not None or others[0].star:
            return None
        clamped = others[0].value
    else:  # x.clamp_(min=b)
        if others:
            return None
        clamped = func.value
    return _conversion(clamped)


def _conversion(node: cst.BaseExpression) -> tuple[str, float] | None:
    """The dtype an explicit float32/float64 conversion gives (`x.to(torch.float)`, `x.float()`)."""
    if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
        return None
    method = node.func.attr.value
    if method in CONVERSION_METHODS and not node.args:
        named = CONVERSION_METHODS[method]
        return named, CONVERSION_DTYPES[named]
    if method == "to" and len(node.args) == 1 and not node.args[0].star:
        keyword = node.args[0].keyword
        dtype = dotted(node.args[0].value)
        if (keyword is None or keyword.value == "dtype") and dtype is not None and dtype in CONVERSION_DTYPES:
            return dtype, CONVERSION_DTYPES[dtype]
    return None
