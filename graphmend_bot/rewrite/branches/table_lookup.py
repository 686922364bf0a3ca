"""A table lookup guarded by its index's sign: `self.table[i] if i >= 0 else self.fallback`.

Diffusion schedulers read the cumulative product of alphas at the previous timestep, which is
negative at the last step (diffusers' DDPM and DDIM `step`/`_get_variance`):

    alpha_prod_t_prev = self.alphas_cumprod[prev_t] if prev_t >= 0 else self.one

`prev_t` is documented as an `int` but is a 0-d tensor when the timesteps come from the
scheduler's own `timesteps` tensor, the usual case: the `if` then breaks the graph. The predicate
rewrite (`torch.where(prev_t >= 0, ...)`) is not well-typed for the documented `int` (torch.where
takes no Python bool). This one is, for both:

    alpha_prod_t_prev = torch.where(torch.as_tensor(prev_t) >= 0, self.alphas_cumprod[prev_t], self.one)

`torch.as_tensor` returns a tensor argument itself and turns an `int` (also a dynamic one, a
SymInt) into a 0-d tensor; the index keeps its original form, so an `int` index stays an `int`
index (measured on torch 2.13: a computed index such as `prev_t.clamp(min=0)` or `max(prev_t, 0)`
is a data-dependent read that breaks again, and `torch.as_tensor(prev_t >= 0)` cannot convert a
SymBool). The table and the fallback must be `self` attributes that every assignment in the class
makes a tensor (`proven_tensor_attributes`), so torch code is written only on proven tensors.

The fix is unsafe: the table is indexed for every `i` (a negative `i` below `-len(table)` would
raise where the conditional returned the fallback), and `torch.where` promotes dtypes, broadcasts
shapes and places the result on the non-CPU device of the two where the conditional returned
the chosen value as it was. Each is listed in the fix's assumptions.
"""

from __future__ import annotations

import libcst as cst

from graphmend_bot.findings import Edit, Finding, Fix, Location
from graphmend_bot.rewrite.branching import LocalFacts, enclosing_function, torch_import
from graphmend_bot.rewrite.class_attributes import (
    assigned_in_init,
    attributes_bound_otherwise,
    enclosing_class,
    inherited_assumption,
)
from graphmend_bot.rewrite.context import FixContext, Rejected
from graphmend_bot.rewrite.purity import dotted
from graphmend_bot.rewrite.well_typed import TypeEvidence

# torch functions that always return a tensor (or raise): what a tensor attribute is built with.
TENSOR_FUNCTIONS = frozenset({
    "tensor", "as_tensor", "from_numpy", "linspace", "arange", "ones", "zeros", "full", "empty",
    "ones_like", "zeros_like", "full_like", "cumprod", "cumsum", "cat", "stack", "exp", "log", "sqrt",
    "sigmoid", "clamp", "where", "flip", "concat", "concatenate",
})
MAX_LINE = 100  # as the predicate rewrite wraps its torch.where
# Tensor methods whose result is a tensor again.
TENSOR_METHODS = frozenset({"to", "float", "double", "half", "clone", "detach", "flip", "cpu", "cuda", "contiguous"})


def build_fix(ctx: FixContext, finding: Finding) -> Fix | None:
    test = ctx.node_at(finding)
    parent = ctx.parent(test) if test is not None else None
    if not isinstance(parent, cst.IfExp) or parent.test is not test:
        return None
    try:
        return _lookup_fix(ctx, parent)
    except Rejected:
        return None


def _lookup_fix(ctx: FixContext, node: cst.IfExp) -> Fix:
    index = _sign_tested_name(node.test)
    table = _table_read(node.body, index)
    fallback = dotted(node.orelse) if isinstance(node.orelse, cst.Attribute) else None
    if fallback is None:
        raise Rejected("the fallback is not a `self` attribute")
    function = enclosing_function(ctx, node)
    if function is not None and _computed_here(function, index):
        # Measured on torch 2.13: indexing with a 0-d tensor computed in the same graph reads its
        # value (`_local_scalar_dense`), a break of its own; a graph input index does not. The select
        # would then remove nothing (diffusers' DDIM `step`, `prev_timestep = timestep - ...`).
        raise Rejected(f"`{index}` is computed in this function: the table read would break instead")
    cls = enclosing_class(ctx, node)
    proven = proven_tensor_attributes(cls)
    for name in (table, fallback):
        if not name.startswith("self.") or name.removeprefix("self.") not in proven:
            raise Rejected(f"`{name}` is not an attribute the class always makes a tensor")
        # Both are now read on every call: each must exist whenever the object does.
        if not assigned_in_init(cls, name.removeprefix("self.")):
            raise Rejected(f"`{name}` is not assigned in `__init__`'s own body: it may not exist when read")
    evidence = TypeEvidence(ctx, LocalFacts.of(ctx, function), node)
    evidence.require_tensors(node.body, "the table entry")
    evidence.require_tensors(node.orelse, "the fallback")
    edit = _where_edit(ctx, node, [f"torch.as_tensor({index}) >= 0", f"{table}[{index}]", fallback])
    assumptions = (
        f"`{table}[{index}]` is now read for every `{index}`: a negative `{index}` is assumed to be a "
        f"valid index (at least `-len({table})`), where the conditional returned `{fallback}` unread",
        f"`{index}` is an integer or a 0-d integer tensor, and `{table}[{index}]` and `{fallback}` "
        "are 0-d tensors of one dtype: torch.where promotes and broadcasts where the conditional "
        "returned the chosen value as it was",
        f"`{table}` and `{fallback}` are on one device: otherwise the result is on the non-CPU one "
        "also where the conditional returned the CPU value (diffusers' `add_noise` moves "
        "`alphas_cumprod` but not the fallback; the values are the same)",
        f"`{table}` and `{fallback}` need no gradient: the value not chosen would get a zero "
        "gradient where the conditional gave it none",
        *filter(None, [inherited_assumption(cls, [table, fallback])]),
    )
    return Fix.of(
        "Select the table entry or the fallback with `torch.where` (the table is read for every index)",
        (*torch_import(ctx), edit),
        assumptions,
    )


def _where_edit(ctx: FixContext, node: cst.IfExp, arguments: list[str]) -> Edit:
    """The conditional replaced by `torch.where(...)`: on its line, or with its arguments on a line
    of their own (one per line if that is too long too) when the line would pass MAX_LINE. The
    conditional's own parentheses go on one line (the call's bracket is enough) and stay around a
    conditional spread over lines (which the call then fits within)."""
    start, end = ctx.span_with_parentheses(node)
    return Edit(_wrapped(ctx, node, arguments, start, end), start, end)


def _wrapped(ctx: FixContext, node: cst.IfExp, arguments: list[str], start: Location, end: Location) -> str:
    code = f"torch.where({', '.join(arguments)})"
    line = ctx.line(start.row)
    if start.row != end.row or len(line.rstrip()) - (end.column - start.column) + len(code) <= MAX_LINE:
        return code
    indent = ctx.indentation_of(node) + ctx.indent_unit
    inner = f"{indent}{', '.join(arguments)}"
    if len(inner) > MAX_LINE:
        inner = "\n".join(f"{indent}{argument}," for argument in arguments)
    return f"torch.where(\n{inner}\n{ctx.indentation_of(node)})"


def _sign_tested_name(test: cst.BaseExpression) -> str:
    """`i` of `i >= 0`, the only condition this rewrite takes."""
    if (
        isinstance(test, cst.Comparison)
        and isinstance(test.left, cst.Name)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.GreaterThanEqual)
        and isinstance(test.comparisons[0].comparator, cst.Integer)
        and test.comparisons[0].comparator.value == "0"
    ):
        return test.left.value
    raise Rejected("the condition is not `<name> >= 0`")


def _table_read(body: cst.BaseExpression, index: str) -> str:
    """`self.table` of `self.table[index]`: one plain index, the name the condition tests."""
    if not isinstance(body, cst.Subscript) or len(body.slice) != 1:
        raise Rejected("the selected value is not a table read")
    element = body.slice[0].slice
    if not (isinstance(element, cst.Index) and isinstance(element.value, cst.Name) and element.value.value == index):
        raise Rejected(f"the table is not indexed by `{index}` itself")
    table = dotted(body.value)
    if table is None:
        raise Rejected("the table is not an attribute read")
    return table


def _computed_here(function: cst.FunctionDef, name: str) -> bool:
    """Whether the function binds `name` to arithmetic (`i = t - step`), as opposed to a parameter
    or the result of a call (whose own breaks may make it a graph input, as diffusers'
    `prev_t = self.previous_timestep(t)`)."""
    for statement in function.body.body:
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if (
                isinstance(small, cst.Assign)
                and any(isinstance(t.target, cst.Name) and t.target.value == name for t in small.targets)
                and isinstance(small.value, cst.BinaryOperation | cst.UnaryOperation)
            ):
                return True
    return False


def proven_tensor_attributes(cls: cst.ClassDef) -> set[str]:
    """Attributes of `self` that every assignment in the class body makes a tensor: a call of a
    tensor-making torch function, a tensor method or an index of a proven attribute, arithmetic
    with one, or a conditional expression whose arms both are. An attribute assigned anything
    else anywhere (or augmented, or annotated) is not proven: it may hold that when read."""
    # register_buffer("x", ...), a class-level `x`, a loop target: bound with a value not read here
    assigned: dict[str, list[cst.BaseExpression | None]] = {name: [None] for name in attributes_bound_otherwise(cls)}

    class Collector(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                for name in _self_attributes(target.target):
                    # A tuple target gets an element of the value: unknown.
                    whole = isinstance(target.target, cst.Attribute)
                    assigned.setdefault(name, []).append(node.value if whole else None)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            for name in _self_attributes(node.target):
                assigned.setdefault(name, []).append(None)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            for name in _self_attributes(node.target):
                assigned.setdefault(name, []).append(None)

    cls.body.visit(Collector())
    proven: set[str] = set()
    changed = True
    while changed:  # a fixed point: `alphas_cumprod[0]` is proven once `alphas_cumprod` is
        changed = False
        for name, values in assigned.items():
            if name in proven or any(v is None for v in values):
                continue
            # `self.t = self.t.to(device)` keeps a tensor a tensor (induction over assignments),
            # so it may read itself, but one assignment must make the tensor without it.
            founded = any(_makes_tensor(v, proven) for v in values if v is not None)
            if founded and all(_makes_tensor(v, proven | {name}) for v in values if v is not None):
                proven.add(name)
                changed = True
    return proven


def _self_attributes(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self":
        return [target.attr.value]
    if isinstance(target, cst.Tuple | cst.List):
        return [name for element in target.elements for name in _self_attributes(element.value)]
    return []


def _makes_tensor(value: cst.BaseExpression, proven: set[str]) -> bool:
    if isinstance(value, cst.Call):
        func = value.func
        name = dotted(func)
        if name is not None and name.startswith("torch.") and name.count(".") == 1:
            return name.removeprefix("torch.") in TENSOR_FUNCTIONS
        if isinstance(func, cst.Attribute) and func.attr.value in TENSOR_METHODS:
            return _makes_tensor(func.value, proven)
        return False
    if isinstance(value, cst.Attribute):
        name = dotted(value)
        return name is not None and name.startswith("self.") and name.removeprefix("self.") in proven
    if isinstance(value, cst.Subscript):
        return _makes_tensor(value.value, proven)
    if isinstance(value, cst.IfExp):
        return _makes_tensor(value.body, proven) and _makes_tensor(value.orelse, proven)
    if isinstance(value, cst.BinaryOperation):
        sides = (value.left, value.right)
        return any(_makes_tensor(side, proven) for side in sides) and all(
            _makes_tensor(side, proven) or isinstance(side, cst.Integer | cst.Float) for side in sides
        )
    return False
