"""An early return on a tensor being zero, in a function without gradients, whose tail rebinds
the tested name: the test is kept in a name and the final return selects.

torchdiffeq's step-size controller (`misc.py`, `_optimal_step_size`, decorated `@torch.no_grad()`):

    if error_ratio == 0:                         error_ratio_is_zero = error_ratio == 0
        return last_step * ifactor               ...
    ...                                    ->    error_ratio = error_ratio.type_as(last_step)
    error_ratio = error_ratio.type_as(...)       ...
    ...                                          return torch.where(error_ratio_is_zero, last_step * ifactor, last_step * factor)
    return last_step * factor

The predicate tail form cannot take it: the tail rebinds `error_ratio` (`type_as` can round a tiny
float64 ratio to a float32 zero, so the test must read the value before), and it holds another
`if` (rewritten by its own fix). The tail now also runs when the value is zero, where it divides
by it: the unselected value is inf or NaN, which `torch.where` drops, and no error is raised
(floating-point tensors; integer `//` and `%`, which raise on zero, are refused). That is the
degenerate-guard case `degenerate_guards` refuses for its NaN gradients, which is why the function
must run without gradients (`@torch.no_grad()` / `@torch.inference_mode()`).
"""

from __future__ import annotations

import libcst as cst

from graphmend_bot.findings import Finding, Fix
from graphmend_bot.rewrite.branching import LocalFacts, enclosing_function, torch_import
from graphmend_bot.rewrite.context import FixContext, Rejected
from graphmend_bot.rewrite.purity import ArmAnalyzer, dotted, names_in, nodes_in
from graphmend_bot.rewrite.statements import single_return
from graphmend_bot.rewrite.well_typed import TypeEvidence, require_declared_tensor_return

NO_GRAD_DECORATORS = frozenset({"torch.no_grad", "torch.inference_mode"})
# What the tail may call. The original ran the tail on every call but the zero one, with the same
# types and shapes, so only value-dependent failures and side effects matter: these torch
# functions (called as `torch.<f>`) and tensor methods (called on a receiver proven to be a
# tensor) have neither on floating-point tensors. Anything else is refused: `math.log(x)` raises
# on zero, a user's `obj.exp(...)` may do anything, and integer `//` and `%` (which raise on zero)
# and indexing (which raises on a bad value) are refused too.
TAIL_FUNCTIONS = frozenset({
    "torch.tensor", "torch.as_tensor", "torch.ones", "torch.zeros", "torch.full", "torch.ones_like",
    "torch.zeros_like", "torch.where", "torch.min", "torch.max", "torch.minimum", "torch.maximum",
    "torch.abs", "torch.sqrt", "torch.exp", "torch.log", "torch.clamp", "torch.pow",
})
TAIL_METHODS = frozenset({
    "type_as", "to", "reciprocal", "abs", "sqrt", "exp", "log", "pow", "clamp", "float", "double",
})
TAIL_KEYWORDS = frozenset({"dtype", "device", "min", "max"})


def build_fix(ctx: FixContext, finding: Finding) -> Fix | None:
    test = ctx.node_at(finding)
    statement = ctx.parent(test) if test is not None else None
    if not isinstance(statement, cst.If) or statement.test is not test:
        return None
    try:
        return _zero_guard_fix(ctx, statement)
    except Rejected:
        return None


def _zero_guard_fix(ctx: FixContext, statement: cst.If) -> Fix:
    function = enclosing_function(ctx, statement)
    if function is None or ctx.parent(statement) is not function.body:
        raise Rejected("not a statement of a function's own body")
    if not any(_disables_gradients(d.decorator) for d in function.decorators):
        raise Rejected("the function may record gradients: the tail's inf/NaN would reach them")
    if statement.orelse is not None:
        raise Rejected("the `if` has an else branch")
    if not isinstance(statement.body, cst.IndentedBlock):
        raise Rejected("the `if` is on one line (`if x == 0: return y`): only an indented body is rewritten")
    name = _zero_tested_name(statement.test)
    early = single_return(statement.body.body)
    if early is None:
        raise Rejected("the `if` does not only return")
    body = [item for item in function.body.body if isinstance(item, cst.BaseStatement)]
    tail = body[body.index(statement) + 1:]
    final = single_return(tail[-1:]) if tail else None
    if final is None or len(tail) < 2:
        raise Rejected("the function does not end in a `return` after the guard")
    require_declared_tensor_return(ctx, statement)  # `-> float`: torch.where would return a tensor
    analyzer = ArmAnalyzer()
    analyzer.analyze(early)
    analyzer.analyze(final)
    evidence = TypeEvidence(ctx, LocalFacts.of(ctx, function), statement)
    # `return hi` / `return lo` with `hi: float`: torch.where would return a tensor instead.
    evidence.require_tensors(early, "the early return's value")
    evidence.require_tensors(final, "the final return's value")
    evidence.require_tensors(cst.ensure_type(statement.test, cst.Comparison).left, "the tested name")
    numbers: set[str] = set()
    rebound = _check_tail(tail[:-1], numbers, {name}, evidence)
    if name not in rebound:
        raise Rejected(f"the tail does not rebind `{name}`: the predicate tail form applies")
    if names_in(early) & rebound:
        raise Rejected("the tail rebinds a name the early return reads")
    flag = f"{name}_is_zero"
    if flag in names_in(function):
        raise Rejected(f"`{flag}` is already a name in the function")
    early_code, final_code = ctx.code_for(early).strip(), ctx.code_for(final).strip()
    returned = f"return torch.where({flag}, {early_code}, {final_code})"
    return Fix.of(
        "Keep the zero test in a name and select the returned value with `torch.where` (the tail runs on every call)",
        (
            *torch_import(ctx),
            ctx.replace_statement(statement, f"{flag} = {ctx.code_for(statement.test).strip()}"),
            ctx.replace_statement(tail[-1], returned),
        ),
        (
            f"the tail after the guard now also runs when `{name}` is zero: it is assumed not to raise "
            "there (floating-point tensors give inf or NaN, which the unselected value drops)",
            f"`{name}` is a one-element tensor, and both returned values have one dtype and shape: "
            "torch.where promotes and broadcasts where the function returned either as it was",
            *(f"`{number}` is a Python number (`torch.tensor({number}, ...)` now also runs when `{name}` "
              "is zero; a tensor there would warn)" for number in sorted(numbers)),
        ),
    )


def _disables_gradients(node: cst.BaseExpression) -> bool:
    """`@torch.no_grad` / `@torch.no_grad()`, `@torch.inference_mode` / `@torch.inference_mode()` /
    `(True)` / `(mode=True)`. Any other argument may turn gradients back on
    (`torch.inference_mode(False)`, `torch.inference_mode(mode=flag)`), so it is refused."""
    if not isinstance(node, cst.Call):
        return dotted(node) in NO_GRAD_DECORATORS
    name = dotted(node.func)
    if name not in NO_GRAD_DECORATORS or not node.args:
        return name in NO_GRAD_DECORATORS
    if name != "torch.inference_mode" or len(node.args) != 1:
        return False
    (arg,) = node.args
    keyword = arg.keyword.value if arg.keyword is not None else "mode"
    return not arg.star and keyword == "mode" and isinstance(arg.value, cst.Name) and arg.value.value == "True"


def _zero_tested_name(test: cst.BaseExpression) -> str:
    if (
        isinstance(test, cst.Comparison)
        and isinstance(test.left, cst.Name)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.Equal)
        and isinstance(test.comparisons[0].comparator, cst.Integer | cst.Float)
        and float(test.comparisons[0].comparator.value) == 0
    ):
        return test.left.value
    raise Rejected("the condition is not `<name> == 0`")


def _check_tail(
    statements: list[cst.BaseStatement], numbers: set[str], tensors: set[str], evidence: TypeEvidence
) -> set[str]:
    """The names the tail binds. Each statement must be `name = <pure expression>` or an `if` on
    a pure test whose branches only do that, so running it on every call changes nothing but
    values the final return reads. Raises Rejected otherwise. `tensors` holds the names proven to
    be tensors at this point (the tested name, then what the tail binds from tensor calls); it is
    updated as the statements bind names."""
    rebound: set[str] = set()
    for statement in statements:
        if isinstance(statement, cst.If):
            _require_tail_safe(statement.test, numbers, tensors, evidence)
            branches = [statement.body]
            if statement.orelse is not None:
                if not isinstance(statement.orelse, cst.Else):
                    raise Rejected("an `elif` in the tail")
                branches.append(statement.orelse.body)
            # A name is a tensor after the `if` only when it is one on every path through it.
            paths = [] if statement.orelse is not None else [set(tensors)]
            for branch in branches:
                if not isinstance(branch, cst.IndentedBlock):
                    raise Rejected("a one-line `if` in the tail")
                path = set(tensors)
                rebound |= _check_tail(list(branch.body), numbers, path, evidence)
                paths.append(path)
            tensors.clear()
            tensors.update(set.intersection(*paths))
            continue
        if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
            raise Rejected("the tail holds a compound or multi-statement line")
        small = statement.body[0]
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)):
            raise Rejected("the tail holds something other than a plain assignment")
        _require_tail_safe(small.value, numbers, tensors, evidence)
        target = small.targets[0].target.value
        rebound.add(target)
        if _proven_tensor(small.value, tensors, evidence):
            tensors.add(target)
        else:
            tensors.discard(target)
    return rebound


def _require_tail_safe(
    value: cst.BaseExpression, numbers: set[str], tensors: set[str], evidence: TypeEvidence
) -> None:
    """Raise Rejected unless evaluating `value` once more (when the tested value is zero) can
    neither raise on a value nor have a side effect: its calls are `torch.<f>` for a listed `f`,
    or a listed method on a receiver proven to be a tensor (`math.log(x)` raises on zero, and a
    user's `obj.exp(...)` may do anything). `torch.tensor(<name>, ...)` records the name in
    `numbers`: a tensor there would warn."""
    for node in nodes_in(value):
        if isinstance(node, cst.FloorDivide | cst.Modulo):
            raise Rejected("integer `//` or `%` raises on zero")
        if isinstance(node, cst.Subscript | cst.Lambda | cst.NamedExpr | cst.Await | cst.Yield):
            raise Rejected(f"`{type(node).__name__}` in the tail")
        if isinstance(node, cst.Call):
            name = dotted(node.func)
            if name in TAIL_FUNCTIONS:
                if name == "torch.tensor" and node.args and isinstance(node.args[0].value, cst.Name):
                    numbers.add(node.args[0].value.value)
            elif name is not None and name.startswith("torch."):
                raise Rejected(f"`{name}` in the tail")
            elif not (
                isinstance(node.func, cst.Attribute)
                and node.func.attr.value in TAIL_METHODS
                and _proven_tensor(node.func.value, tensors, evidence)
            ):
                raise Rejected(f"`{evidence.ctx.code_for(node.func).strip()}(...)` in the tail: not a listed "
                               "torch function or a listed method of a proven tensor")
            for arg in node.args:
                if arg.star or (arg.keyword is not None and arg.keyword.value not in TAIL_KEYWORDS):
                    raise Rejected("a keyword or star argument in the tail")


def _proven_tensor(node: cst.BaseExpression, tensors: set[str], evidence: TypeEvidence) -> bool:
    """`node` is a tensor: a name in `tensors`, a listed `torch.<f>(...)` call, or a listed
    tensor method called on one of those; and nothing in the text shows it is not one."""
    if evidence.python_value(node) is not None:
        return False
    if isinstance(node, cst.Name):
        return node.value in tensors
    if isinstance(node, cst.Call):
        func = node.func
        if dotted(func) in TAIL_FUNCTIONS:
            return True
        return (
            isinstance(func, cst.Attribute)
            and func.attr.value in TAIL_METHODS
            and _proven_tensor(func.value, tensors, evidence)
        )
    return False
