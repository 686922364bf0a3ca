"""The index of the first match, `(self.timesteps == t).nonzero(as_tuple=True)[0][0]`, as `argmax`.

Diffusion schedulers find the current step's position in their timestep table this way (diffusers'
DDPM, LCM, TCD `previous_timestep`). `nonzero` has a data-dependent output shape, a graph break of
its own. On a 1-d condition, `[0][0]` of `nonzero` (also `nonzero()`, `torch.nonzero`, one-argument
`torch.where`) is the position of the first True, which is what `cond.int().argmax()` returns
(PyTorch documents that argmax returns the first maximal index; `argmax` takes no bool, hence
`.int()`). Measured on torch 2.13: both are 0-d int64 tensors on the condition's device, equal for
every position; an empty condition raises IndexError in both; `argmax` compiles without a break.

The one difference: where nothing matches, `[0][0]` raises IndexError and `argmax` returns 0. So
the fix is unsafe and says so ("the value occurs in the table").

Only on a proven 1-d condition (on a 2-d one `argmax` is a flat position, `[0][0]` a row): `==`
between a `self` attribute that every assignment in the class makes 1-d (`one_dimensional_attributes`)
(a `torch.` call at the root: a numpy array has `.nonzero()` but no `.int()`) and a Python
number or a parameter annotated as one (`timestep: int`; a 0-d tensor passed there
keeps the comparison 1-d, which is the assumption listed).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from graphmend_bot.findings import Finding, Fix
from graphmend_bot.rewrite.branching import LocalFacts, enclosing_function, is_python_number
from graphmend_bot.rewrite.class_attributes import (
    attributes_bound_otherwise,
    enclosing_class,
    inherited_assumption,
    self_attribute,
    self_attributes_in,
)
from graphmend_bot.rewrite.context import FixContext, Rejected
from graphmend_bot.rewrite.purity import dotted

# Functions whose result is 1-d when every argument is a Python number (numpy's `linspace` takes
# array end points too, and then returns one column per element).
ONE_D_MAKERS = frozenset({"arange", "linspace", "logspace", "randperm"})
SPAN_KEYWORDS = frozenset({"start", "end", "stop", "step", "steps", "num", "base", "n"})  # not dtype, device
# Functions whose result has the rank of their first argument, given at most one more positional
# argument and only these keywords (numpy's `array(..., ndmin=2)` adds dimensions).
RANK_KEEPING_FUNCTIONS = frozenset({"from_numpy", "as_tensor", "tensor", "array", "asarray", "round", "flip"})
RANK_KEEPING_KEYWORDS = frozenset({"dtype", "device", "copy", "requires_grad", "decimals", "dims"})
# Methods whose result has the rank of their receiver (numpy's and torch's).
RANK_KEEPING_METHODS = frozenset({
    "to", "copy", "round", "astype", "flip", "clone", "long", "int", "float", "double", "half",
    "cpu", "cuda", "detach", "contiguous", "type",
})
ARRAY_MODULES = ("torch", "np", "numpy")
# A documented flat list of numbers: `list[int]`, `List[float]`, optionally `| None` / Optional[...].
FLAT_LIST_ANNOTATIONS = frozenset({f"{lst}[{num}]" for lst in ("list", "List") for num in ("int", "float")})


def build_fix(ctx: FixContext, finding: Finding) -> Fix | None:
    call = ctx.node_at(finding)
    if not isinstance(call, cst.Call):
        return None
    try:
        return _first_match_fix(ctx, call)
    except Rejected:
        return None


def _first_match_fix(ctx: FixContext, call: cst.Call) -> Fix:
    condition = _condition_of(call)
    first_of_first = _first_of_first(ctx, call)
    table, value = _table_and_value(condition)
    cls = enclosing_class(ctx, call)
    if table.removeprefix("self.") not in one_dimensional_attributes(ctx, cls):
        raise Rejected(f"`{table}` is not an attribute every assignment in the class makes 1-d")
    facts = LocalFacts.of(ctx, enclosing_function(ctx, call))
    if not is_python_number(value, facts.python_scalars()):
        raise Rejected("the value compared is not a Python number or a parameter annotated as one")
    shown = ctx.module.code_for_node(value)
    code = f"({ctx.module.code_for_node(condition.with_changes(lpar=[], rpar=[]))}).int().argmax()"
    assumptions = (
        f"`{shown}` occurs in `{table}`: where it does not, `[0][0]` raised IndexError and "
        "`argmax` returns 0",
        f"`{shown}` is a number or a 0-d tensor, as its annotation says, so the condition is 1-d",
        *filter(None, [inherited_assumption(cls, [table])]),
    )
    return Fix.of(
        "Take the first matching position with `argmax` (no data-dependent shape)",
        (ctx.replace_expression(first_of_first, code),),
        assumptions,
    )


def _condition_of(call: cst.Call) -> cst.BaseExpression:
    """The boolean tensor of `c.nonzero()`, `c.nonzero(as_tuple=True)`, `torch.nonzero(c[, as_tuple=True])`
    or `torch.where(c)`; anything else (another keyword, `out=`) is refused."""
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    keywords = [arg for arg in call.args if arg.keyword is not None]
    if any(arg.star for arg in call.args) or any(
        arg.keyword.value != "as_tuple" or not (isinstance(arg.value, cst.Name) and arg.value.value == "True")
        for arg in keywords
        if arg.keyword is not None
    ):
        raise Rejected("a keyword other than `as_tuple=True`")
    name = dotted(call.func)
    if isinstance(call.func, cst.Attribute) and call.func.attr.value == "nonzero" and name != "torch.nonzero":
        if positional:
            raise Rejected("`.nonzero` with a positional argument")
        return call.func.value
    if name in ("torch.nonzero", "torch.where") and len(positional) == 1 and not (name == "torch.where" and keywords):
        return positional[0].value
    raise Rejected("not a first-match call")


def _is_zero_index(node: cst.CSTNode | None) -> bool:
    if not isinstance(node, cst.Subscript) or len(node.slice) != 1:
        return False
    element = node.slice[0].slice
    return isinstance(element, cst.Index) and isinstance(element.value, cst.Integer) and element.value.value == "0"


def _first_of_first(ctx: FixContext, call: cst.Call) -> cst.Subscript:
    """The `call[0][0]` around the call: the first match's position, nothing else."""
    inner = ctx.parent(call)
    outer = ctx.parent(inner) if inner is not None else None
    if not (_is_zero_index(inner) and _is_zero_index(outer)):
        raise Rejected("not `[0][0]` of the matches")
    assert isinstance(inner, cst.Subscript) and isinstance(outer, cst.Subscript)
    if inner.value is not call or outer.value is not inner:
        raise Rejected("not `[0][0]` of the matches")
    return outer


def _table_and_value(condition: cst.BaseExpression) -> tuple[str, cst.BaseExpression]:
    """(`self.table`, value) of `self.table == value` (or `value == self.table`)."""
    if not (
        isinstance(condition, cst.Comparison)
        and len(condition.comparisons) == 1
        and isinstance(condition.comparisons[0].operator, cst.Equal)
    ):
        raise Rejected("the condition is not one `==` comparison")
    left, right = condition.left, condition.comparisons[0].comparator
    for table, value in ((left, right), (right, left)):
        name = dotted(table) if isinstance(table, cst.Attribute) else None
        if name is not None and name.startswith("self.") and name.count(".") == 1:
            return name, value
    raise Rejected("neither side is a `self` attribute")


def one_dimensional_attributes(ctx: FixContext, cls: cst.ClassDef) -> set[str]:
    """Attributes of `self` that every assignment in the class body makes 1-d: `arange`/`linspace`
    (torch or numpy), a 1-d array made a tensor (`torch.from_numpy`), rank-keeping methods
    (`.to(device)`, `.astype(...)`, `.round()`, `[::-1]`), arithmetic with a Python number, and
    locals of the assigning function that every assignment makes 1-d (an augmented assignment is
    in place, so it keeps the shape). Anything else anywhere, or an unpacking, disproves it."""
    candidates: dict[str, list[tuple[cst.BaseExpression, cst.FunctionDef | None]]] = {}
    unknown = attributes_bound_otherwise(cls)  # register_buffer("x", ...), a class-level `x`, ...

    class Collector(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                name = self_attribute(target.target)
                if name is not None:
                    candidates.setdefault(name, []).append((node.value, enclosing_function(ctx, node)))
                else:
                    unknown.update(self_attributes_in(target.target))

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            name = self_attribute(node.target)
            if name is not None and node.value is not None:
                candidates.setdefault(name, []).append((node.value, enclosing_function(ctx, node)))

    cls.body.visit(Collector())
    locals_of = {function: _Locals.of(function, ctx) for values in candidates.values() for _, function in values}
    numbers = {
        name for name, values in candidates.items()
        if name not in unknown and all(
            (isinstance(value, cst.Name) and value.value == "None") or _number(value, locals_of[function], set())
            for value, function in values
        )
    }
    for local in locals_of.values():
        local.number_attributes = numbers
    return {
        name for name, values in candidates.items()
        if name not in unknown
        and all(
            _torch_made(value) and _one_dimensional(value, locals_of[function], frozenset())
            for value, function in values
        )
    }


def _torch_made(node: cst.BaseExpression) -> bool:
    """A torch tensor, not a numpy array (which has `.nonzero()` but no `.int()`): a `torch.`
    call, or a rank-keeping method or slice of one."""
    if isinstance(node, cst.Call):
        name = dotted(node.func)
        if name is not None and name.startswith("torch."):
            return True
        return isinstance(node.func, cst.Attribute) and node.func.attr.value in RANK_KEEPING_METHODS and (
            _torch_made(node.func.value)
        )
    return isinstance(node, cst.Subscript) and _torch_made(node.value)


class _Locals:
    """One function's plain-name bindings: the values of `name = value`, and the names bound any
    other way (loop targets, unpacking, `with ... as`, walrus) whose rank is unknown. Augmented
    assignments are in place on an array, so they keep its shape, but they rebind a Python number
    (`end += offsets` makes an array of it): `augmented` names are never numbers."""

    def __init__(
        self, facts: LocalFacts, values: dict[str, list[cst.BaseExpression]], opaque: set[str], augmented: set[str]
    ) -> None:
        self.facts = facts
        self.values = values
        self.opaque = opaque
        self.augmented = augmented
        self.scalars = facts.python_scalars()
        # `self` attributes the class only ever sets to a Python number or None
        self.number_attributes: set[str] = set()

    @classmethod
    def of(cls, function: cst.FunctionDef | None, ctx: FixContext) -> _Locals:
        facts = LocalFacts.of(ctx, function)
        values: dict[str, list[cst.BaseExpression]] = {}
        opaque: set[str] = set()
        augmented: dict[str, int] = {}

        if function is not None:
            class Counter(cst.CSTVisitor):
                def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
                    return node is function

                def visit_ClassDef(self, node: cst.ClassDef) -> bool:
                    return False  # its names are its own, as LocalFacts counts them

                def visit_AugAssign(self, node: cst.AugAssign) -> None:
                    if isinstance(node.target, cst.Name):
                        augmented[node.target.value] = augmented.get(node.target.value, 0) + 1

            function.visit(Counter())
        for name, bound in facts.assignments.items():
            known = [value for value in bound if value is not None]
            values[name] = known
            if len(bound) - len(known) != augmented.get(name, 0):
                opaque.add(name)  # bound by something other than `=` or an augmented assignment
        return cls(facts, values, opaque, set(augmented))


def _one_dimensional(node: cst.BaseExpression, local: _Locals, visiting: frozenset[str]) -> bool:
    recurse: Callable[[cst.BaseExpression], bool] = lambda inner: _one_dimensional(inner, local, visiting)  # noqa: E731
    if isinstance(node, cst.Call):
        name = dotted(node.func)
        module, _, function = (name or "").rpartition(".")
        positional = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
        keywords = {arg.keyword.value for arg in node.args if arg.keyword is not None}
        if any(arg.star for arg in node.args):
            return False
        if module in ARRAY_MODULES and function in ONE_D_MAKERS:
            numbers = (arg.value for arg in node.args if arg.keyword is None or arg.keyword.value in SPAN_KEYWORDS)
            return all(_number(value, local, local.number_attributes) for value in numbers)
        if module in ARRAY_MODULES and function in RANK_KEEPING_FUNCTIONS:
            return 1 <= len(positional) <= 2 and keywords <= RANK_KEEPING_KEYWORDS and recurse(positional[0])
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in RANK_KEEPING_METHODS:
            return module not in ARRAY_MODULES and recurse(node.func.value)
        return False
    if isinstance(node, cst.Subscript):
        return len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Slice) and recurse(node.value)
    if isinstance(node, cst.BinaryOperation):
        sides = (node.left, node.right)
        return any(recurse(side) for side in sides) and all(
            recurse(side) or _number(side, local, local.number_attributes) for side in sides
        )
    if isinstance(node, cst.Name):
        return _one_dimensional_name(node.value, local, visiting)
    return False


def _number(
    node: cst.BaseExpression, local: _Locals, number_attributes: set[str], visiting: frozenset[str] = frozenset()
) -> bool:
    """A Python number: what `is_python_number` proves, a `self` attribute the class only sets to
    numbers (or None, which no arithmetic accepts), or a local that only ever holds those."""
    if is_python_number(node, local.scalars):
        return True
    if isinstance(node, cst.Attribute):
        return self_attribute(node) in number_attributes
    if isinstance(node, cst.UnaryOperation):
        return _number(node.expression, local, number_attributes, visiting)
    if isinstance(node, cst.BinaryOperation):
        return _number(node.left, local, number_attributes, visiting) and _number(
            node.right, local, number_attributes, visiting
        )
    if isinstance(node, cst.Name) and node.value not in visiting:
        values = local.values.get(node.value)
        inner = visiting | {node.value}
        return (
            bool(values) and node.value not in local.opaque and node.value not in local.facts.params
            and node.value not in local.augmented
            and all(_number(value, local, number_attributes, inner) for value in values or [])
        )
    return False


def _one_dimensional_name(name: str, local: _Locals, visiting: frozenset[str]) -> bool:
    """A local is 1-d when every value assigned to it is (and, for a parameter, its own value: a
    documented flat list of numbers). A value built from the name itself (`t = np.array(t)`) is
    taken by induction: it keeps the rank the other values found."""
    if name in visiting:
        return True
    if name in local.opaque or (name not in local.values and name not in local.facts.params):
        return False
    if name in local.facts.params and not _flat_list_parameter(local.facts.params[name]):
        return False
    inner = visiting | {name}
    return all(_one_dimensional(value, local, inner) for value in local.values.get(name, []))


def _flat_list_parameter(param: cst.Param) -> bool:
    if param.annotation is None:
        return False
    annotation = param.annotation.annotation
    if (
        isinstance(annotation, cst.BinaryOperation)
        and isinstance(annotation.operator, cst.BitOr)
        and isinstance(annotation.right, cst.Name)
        and annotation.right.value == "None"
    ):
        annotation = annotation.left
    if (
        isinstance(annotation, cst.Subscript)
        and dotted(annotation.value) in ("Optional", "typing.Optional")
        and len(annotation.slice) == 1
        and isinstance(annotation.slice[0].slice, cst.Index)
    ):
        annotation = annotation.slice[0].slice.value
    code = cst.Module([]).code_for_node(annotation).replace(" ", "")
    return code in FLAT_LIST_ANNOTATIONS
