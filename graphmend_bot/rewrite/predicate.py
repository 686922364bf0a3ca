"""Predicated control flow: branches on a tensor's value become `torch.where`.

Handled shapes (all on a provably 0-d tensor condition, see `branching`):

- `if c: x = A` / `else: x = B` (any number of plain-name assignments, the same targets, or an
  else-less update keeping the old value)  ->  `x = torch.where(c, A, B)`
- `if c1: ... elif c2: ... else: ...`  ->  nested `torch.where`
- `A if c else B`  ->  `torch.where(c, A, B)`
- `if c: return A` followed by `return B` (or `else: return B`)  ->  `return torch.where(c, A, B)`
- arms that end in the same statement differing in one tensor value, after preparation steps that
  are safe to run unconditionally (a lazily filled cache, `self.t = self.t.to(device)`): the steps
  are hoisted and the value is selected, as in the LongRoPE fix of transformers 5.x
  (`torch.where(seq_len > original_max_position_embeddings, long_inv_freq, original_inv_freq)`)
- `and` / `or` / `not` in the condition become `torch.logical_and/or/not`.

Arms must be pure elementwise expressions (`purity`); anything else is left to `cond` (torch.cond)
or stays a report. Fix safety: GM101's rule docs (`graphmend rule GM101`); every assumption a fix
rests on is in its `assumptions`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

import libcst as cst

from graphmend_bot.findings import Edit, Finding, Fix
from graphmend_bot.rewrite.branching import (
    ConditionLowering,
    LocalFacts,
    enclosing_function,
    failing_reductions,
    is_bool_tensor_code,
    is_python_number,
    torch_import,
)
from graphmend_bot.rewrite.context import FixContext, Rejected
from graphmend_bot.rewrite.degenerate_guards import require_no_degenerate_guard
from graphmend_bot.rewrite.dtype_facts import floating_names, floating_where_read
from graphmend_bot.rewrite.purity import (
    FLOAT,
    ArmAnalyzer,
    ArmInfo,
    dotted,
    dtype_assumption,
    names_in,
    nodes_in,
)
from graphmend_bot.rewrite.python_extrema import compared_tensors, lower_extrema, shadowed_builtins
from graphmend_bot.rewrite.statements import Chain, branch_chain, next_statement, single_return
from graphmend_bot.rewrite.static_conditions import floating_leaves, split_static_prefix
from graphmend_bot.rewrite.well_typed import require_declared_tensor_return, require_well_typed

MAX_LINE = 100
# A module's parameter read directly (`self.zeroshot_embed.weight`): selecting it with torch.where
# gives the unselected one a zero gradient where the branch gave it none, which optimizers with
# weight decay or momentum act on (measured on MONAI VISTA3D's class embeddings): no fix.
PARAMETER_READ = re.compile(r"self(\.\w+)*\.(weight|bias)")

AUTOGRAD_NOTE = (
    "uses {ops}: torch.where evaluates both arms and the unselected arm's gradient is 0 * (its "
    "backward), which is NaN where that backward is inf/NaN, so gradients can change"
)


class Verdict:
    """Collects why a rewrite is only right under assumptions (each makes the fix unsafe)."""

    def __init__(self) -> None:
        self.assumptions: list[str] = []

    def compare(self, arms: Sequence[tuple[str, ArmInfo]], known_float: set[str] | frozenset[str] = frozenset()) -> None:
        # Precondition: every selected value is a tensor. An arm that is a Python value (`return
        # False`, `else 0.0`) would come back as a tensor where the program gave a Python value.
        for code, info in arms:
            if not info.leaves:
                raise Rejected(f"`{code}` is a Python value: torch.where would turn it into a tensor")
        # Precondition: the selection keeps the result's dtype. torch.where promotes, so arms whose
        # own text gives them different dtypes (`torch.tensor(0)`, an int64 constant, against `x / 2`;
        # `t * 0.5` against a `t` that may be an integer tensor; a comparison against a value) would
        # come back converted: refused. Arms alike but for which tensors they read keep the
        # assumption that those tensors share dtype and shape, and `x + 1` against `x` the assumption
        # that `x` is not a bool tensor (the fix is unsafe and says so).
        first_code, first = arms[0]
        for code, info in arms[1:]:
            note = dtype_assumption(first, info, f"`{first_code}` and `{code}`", known_float)
            if note is None:
                continue
            # A float scalar changes nothing on tensors already floating: only unproven leaves count.
            unproven = (first.leaves | info.leaves) - known_float
            floating = FLOAT in (first.category, info.category) and first.category != info.category and unproven
            if first.fixed != info.fixed or floating:
                raise Rejected(f"torch.where would change the result's dtype: `{first_code}` and `{code}` "
                               f"differ in dtype unless {note.removeprefix('assumes ')}")
            if note not in self.assumptions:
                self.assumptions.append(note)
        for code, _ in arms:
            if PARAMETER_READ.fullmatch(code):
                raise Rejected(f"`{code}` is a parameter: torch.where would give it a zero gradient where it "
                               "was not selected, instead of none (optimizers with weight decay or momentum "
                               "then move it)")
        for _, info in arms:
            for note in info.notes:
                if note not in self.assumptions:
                    self.assumptions.append(note)
        risky = sorted({op for _, info in arms for op in info.risky})
        if risky:
            note = AUTOGRAD_NOTE.format(ops=", ".join(f"`{op}`" for op in risky))
            if note not in self.assumptions:
                self.assumptions.append(note)

    def fix(self, title: str, edits: list[Edit]) -> Fix:
        return Fix.of(title, tuple(edits), tuple(self.assumptions))


def build_if_fix(ctx: FixContext, finding: Finding) -> Fix | None:
    """An `if`/`elif` chain on a tensor condition (the finding is its test) -> `torch.where`."""
    found = _condition(ctx, finding)
    if found is None or not isinstance(found.parent, cst.If) or found.parent.test is not found.test:
        return None
    try:
        chain = branch_chain(ctx, found.parent)
        if chain is None:
            return None
        require_well_typed(ctx, found.facts, found.parent, found.test)
        return _if_statement(ctx, chain, found.facts)
    except Rejected:
        return None


def build_ternary_fix(ctx: FixContext, finding: Finding) -> Fix | None:
    """`a if cond else b` on a tensor condition (the finding is its test) -> `torch.where`."""
    found = _condition(ctx, finding)
    if found is None or not isinstance(found.parent, cst.IfExp) or found.parent.test is not found.test:
        return None
    try:
        require_well_typed(ctx, found.facts, found.parent, found.test)
        return _ternary(ctx, found.parent, found.facts)
    except Rejected:
        return None


def build_bool_operation_fix(ctx: FixContext, finding: Finding) -> Fix | None:
    """`and`/`or`/`not` on tensors (the finding is the operation) -> `torch.logical_*`."""
    found = _condition(ctx, finding)
    if found is None:
        return None
    try:
        require_well_typed(ctx, found.facts, found.test, found.test)
        return _bool_operation(ctx, found.test, found.facts)
    except Rejected:
        return None


class _Condition(NamedTuple):
    test: cst.BaseExpression
    parent: cst.CSTNode | None
    facts: LocalFacts


def _condition(ctx: FixContext, finding: Finding) -> _Condition | None:
    """The flagged condition, the node it is part of, and what its function's locals hold."""
    test = ctx.node_at(finding)
    if not isinstance(test, cst.BaseExpression):
        return None
    return _Condition(test, ctx.parent(test), LocalFacts.of(ctx, enclosing_function(ctx, test)))


# -- chains ----------------------------------------------------------------------------------------


def _lowering(ctx: FixContext, facts: LocalFacts, at: cst.CSTNode) -> ConditionLowering:
    """A condition lowering that knows which local names are proven floating-point."""
    # `&`, `|`, `~` where every operand is a bool tensor, as maintainers write masks.
    lowering = ConditionLowering(ctx, facts, operators=True)
    lowering.assume_one_element = True  # torch.where keeps the if's truth table; the shape is an assumption
    proven = floating_names(ctx, facts, enclosing_function(ctx, at))
    statement = next((node for node in ctx.ancestors(at) if isinstance(node, cst.BaseCompoundStatement | cst.SimpleStatementLine)), at)
    proven |= floating_where_read(ctx, names_in(statement), at, proven)
    lowering.arms.known_float |= proven
    return lowering


def _if_statement(ctx: FixContext, chain: Chain, facts: LocalFacts) -> Fix | None:
    lowering = _lowering(ctx, facts, chain.tests[0])
    require_no_degenerate_guard(chain.tests, _chain_arms(chain))
    static: list[cst.BaseExpression] = []
    if len(chain.tests) == 1 and chain.orelse is None and _returns(ctx, chain) is None:
        # `if x is not None and (x == 0).any():` -> keep the Python part as an `if`, select inside.
        static, dynamic = split_static_prefix(chain.tests[0], facts)
        if static:
            lowering.arms.known_float |= floating_leaves(static)
            selected = [lowering.lower_conjunction(dynamic)]
            body = _assignments(chain.bodies[0])
            if body is None:
                return None
            guard = " and ".join(ctx.code_for(part).strip() for part in static)
            guarded = _assignment_form(ctx, chain, selected, [body, {}], lowering.arms, facts, guard)
            return _with_assumptions(guarded, lowering.assumptions)
    conditions = [lowering.lower(test) for test in chain.tests]
    if len(conditions) > 1:
        # An elif's condition is evaluated only when the ones before it are false.
        for test, code in zip(chain.tests[1:], conditions[1:], strict=True):
            failing = sorted(failing_reductions(test))
            if failing:
                lowering.assumptions.append(
                    f"evaluates `{code}` on every call (assumes {', '.join(f'`.{r}()`' for r in failing)} "
                    "cannot fail there: a floating-point, non-empty tensor)"
                )
    analyzer = lowering.arms
    fix: Fix | None = None
    returns = _returns(ctx, chain)
    tail = _return_tail(ctx, chain) if returns is None else None
    if returns is not None and returns[1] is not None:
        require_no_degenerate_guard(chain.tests, [*chain.bodies, [returns[1]]])
    if tail is not None:  # the hoisted assignments feed the final return
        last = [*(expression for _, expression in tail.hoisted), tail.values[-1]]
        require_no_degenerate_guard([*chain.tests, *tail.tests], [*([value] for value in tail.values[:-1]), last])
    if returns is not None:
        fix = _return_form(ctx, chain, conditions, returns, analyzer)
    elif tail is not None:
        fix = _tail_form(ctx, chain, conditions, tail, lowering)
    else:
        assignments = [_assignments(body) for body in chain.bodies]
        else_assignments = _assignments(chain.orelse) if chain.orelse is not None else {}
        arms = [a for a in assignments if a is not None]
        if len(arms) == len(assignments) and else_assignments is not None:
            arms.append(else_assignments)
            fix = _assignment_form(ctx, chain, conditions, arms, analyzer, facts)
        elif len(chain.tests) == 1 and chain.orelse is not None:
            fix = _merge_form(ctx, chain, conditions[0], analyzer)
    return _with_assumptions(fix, lowering.assumptions)


def _chain_arms(chain: Chain) -> list[Sequence[cst.CSTNode]]:
    """What each path of the chain evaluates; without an `else`, the path that keeps the old values
    of what the bodies assign (a body that is not plain assignments counts as all it names)."""
    arms: list[Sequence[cst.CSTNode]] = list(chain.bodies)
    if chain.orelse is not None:
        return [*arms, chain.orelse]
    kept: set[str] = set()
    for body in chain.bodies:
        assigned = _assignments(body)
        kept |= set(assigned) if assigned is not None else {n for node in body for n in names_in(node)}
    return [*arms, [cst.Name(name) for name in sorted(kept)]]


def _with_assumptions(fix: Fix | None, assumptions: list[str]) -> Fix | None:
    """`fix`, made unsafe by the condition's assumptions (if any)."""
    return fix.assuming(*assumptions) if fix is not None else None


# -- x = torch.where(c, A, B) ----------------------------------------------------------------------


def _assignments(body: Sequence[cst.BaseStatement] | None) -> dict[str, cst.BaseExpression] | None:
    """`name = value` statements only, each name once; None otherwise."""
    if body is None:
        return None
    found: dict[str, cst.BaseExpression] = {}
    for statement in body:
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            return None
        small = statement.body[0]
        if not isinstance(small, cst.Assign) or len(small.targets) != 1:
            return None
        target = small.targets[0].target
        if not isinstance(target, cst.Name) or target.value in found:
            return None
        found[target.value] = small.value
    return found


def _assignment_form(
    ctx: FixContext,
    chain: Chain,
    conditions: list[str],
    arms: list[dict[str, cst.BaseExpression]],
    analyzer: ArmAnalyzer,
    facts: LocalFacts,
    guard: str | None = None,
) -> Fix | None:
    row = ctx.position(chain.top).start.line
    prelude = _static_temporaries(ctx, chain, arms, facts, row)
    arms = [{k: v for k, v in arm.items() if k not in prelude} for arm in arms]
    targets = list(dict.fromkeys(name for arm in arms for name in arm))
    if not targets:
        return None
    analyzer.python_scalars = analyzer.python_scalars | frozenset(prelude)
    verdict = Verdict()
    arms = _lower_builtin_extrema(ctx, chain, arms, facts, verdict)
    for temporary in prelude.values():
        # torch.finfo(x.dtype) now runs on both paths; it raises for integer dtypes, so `x` must be
        # proven floating (it would raise on the path that did not call it).
        for call in _info_calls(temporary):
            owner = dotted(call.args[0].value) if call.args else None
            tensor = owner.removesuffix(".dtype") if owner is not None and owner.endswith(".dtype") else None
            if dotted(call.func) != "torch.finfo" or tensor is None or tensor not in analyzer.known_float:
                return None
    condition_reads = set().union(*(names_in(test) for test in chain.tests))
    if len(targets) > 1 and condition_reads & set(targets):
        return None  # the second assignment would see the first one's new value in its condition
    lines: list[str] = []
    for target in targets:
        values: list[tuple[str, ArmInfo]] = []
        nodes: list[cst.BaseExpression] = []
        for arm in arms:
            value = arm.get(target)
            if value is None:
                if not facts.bound_before(target, row):
                    return None  # the target has no value on this path
                values.append((target, analyzer.analyze(cst.Name(target))))
                nodes.append(cst.Name(target))
                continue
            if names_in(value) & (set(targets) - {target}):
                return None  # depends on another arm assignment: order matters
            nodes.append(value)
            values.append((_expression_code(ctx, value), _analyze_arm(analyzer, value)))
        tensor_values = [pair for pair, node in zip(values, nodes, strict=True) if not _bool_literal(node)]
        if len(tensor_values) < len(values):
            _require_bool_flag(target, [n for n in nodes if not _bool_literal(n)], facts, verdict)
        verdict.compare(tensor_values, analyzer.known_float)
        expression = _nested_where(conditions, [code for code, _ in values])
        lines.append(_format_statement(f"{target} = ", expression, ""))
    comments = _comments(chain)
    statements = [*comments, *(f"{name} = {_expression_code(ctx, value)}" for name, value in prelude.items()), *lines]
    code = "\n".join(statements)
    if guard is not None:
        code = f"if {guard}:\n" + "\n".join(ctx.indent_unit + line if line.strip() else line for line in code.split("\n"))
    edits = [*torch_import(ctx), ctx.replace_statement(chain.top, code)]
    what = "`if`/`elif` chain" if len(conditions) > 1 else "`if`"
    names = ", ".join(f"`{t}`" for t in targets)
    return verdict.fix(f"Select {names} with `torch.where` instead of branching on a tensor in the {what} (both arms are evaluated)", edits)


def _lower_builtin_extrema(
    ctx: FixContext, chain: Chain, arms: list[dict[str, cst.BaseExpression]], facts: LocalFacts, verdict: Verdict
) -> list[dict[str, cst.BaseExpression]]:
    """The arms with Python `max(a, b)`/`min(a, b)` on the condition's tensors written as
    `torch.where` (`python_extrema`), so the arm can be evaluated on every path."""
    tensors = compared_tensors(chain.tests, facts)
    shadowed = shadowed_builtins(ctx, facts)
    lowered_arms: list[dict[str, cst.BaseExpression]] = []
    for arm in arms:
        lowered: dict[str, cst.BaseExpression] = {}
        for name, value in arm.items():
            lowered[name], notes = lower_extrema(value, tensors, shadowed)
            verdict.assumptions.extend(note for note in notes if note not in verdict.assumptions)
        lowered_arms.append(lowered)
    return lowered_arms


def _bool_literal(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value in ("True", "False")


def _analyze_arm(analyzer: ArmAnalyzer, value: cst.BaseExpression) -> ArmInfo:
    """The arm's info; a `True`/`False` arm has none (`_require_bool_flag` judges it)."""
    return ArmInfo(frozenset()) if _bool_literal(value) else analyzer.analyze(value)


def _require_bool_flag(target: str, others: list[cst.BaseExpression], facts: LocalFacts, verdict: Verdict) -> None:
    """A `True`/`False` arm may be selected only against bool tensors: torchdiffeq's
    `accept_step = error_ratio <= 1; if dt > self.max_step: accept_step = False` becomes
    `torch.where(dt > self.max_step, False, accept_step)`, a bool tensor either way."""

    def is_bool_tensor(node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Name) and not _bool_literal(node):
            # Its other assignments; the `True`/`False` ones are the arms being selected.
            assigned = [v for v in facts.values(node.value) if v is None or not _bool_literal(v)]
            return bool(assigned) and all(v is not None and is_bool_tensor_code(v) for v in assigned)
        return is_bool_tensor_code(node)

    if not others or not all(is_bool_tensor(node) for node in others):
        raise Rejected(f"`{target}` takes a Python bool on one path and is not provably a bool tensor on the others")
    verdict.assumptions.append(
        f"`{target}` is read only as a truth value or by tensor code: it is now a 0-d bool tensor where the "
        "`if` assigned a Python bool"
    )


# -- return torch.where(c, A, B) -------------------------------------------------------------------


def _returns(ctx: FixContext, chain: Chain) -> tuple[list[cst.BaseExpression], cst.CSTNode | None] | None:
    """The returned values of each arm (and the statement after the chain holding the last
    return, when there is no `else`), or None when the chain is not all returns."""
    values: list[cst.BaseExpression] = []
    for body in chain.bodies:
        value = single_return(body)
        if value is None:
            return None
        values.append(value)
    if chain.orelse is not None:
        value = single_return(chain.orelse)
        if value is None:
            return None
        return [*values, value], None
    following = next_statement(ctx, chain.top)
    if following is None:
        return None
    value = single_return([following])
    if value is None:
        return None
    return [*values, value], following


def _return_form(
    ctx: FixContext,
    chain: Chain,
    conditions: list[str],
    returns: tuple[list[cst.BaseExpression], cst.CSTNode | None],
    analyzer: ArmAnalyzer,
) -> Fix | None:
    values, following = returns
    verdict = Verdict()
    require_declared_tensor_return(ctx, chain.top)
    arms = [(_expression_code(ctx, value), analyzer.analyze(value)) for value in values]
    verdict.compare(arms, analyzer.known_float)
    code = "\n".join([*_comments(chain), _format_statement("return ", _nested_where(conditions, [c for c, _ in arms]), "")])
    last = following if following is not None else chain.top
    edits = [*torch_import(ctx), ctx.replace_statements(chain.top, last, code)]
    return verdict.fix("Return the `torch.where` selection instead of returning early on a tensor condition (both values are computed)", edits)


class ReturnTail:
    """An else-less `if c: return A` and what follows it up to the block's `return V`: more `if
    c_i: return A_i` (`tests`) and plain assignments to hoist (`hoisted`). `values` holds A, each
    A_i and V, in order; `last` is the final return statement."""

    def __init__(self) -> None:
        self.tests: list[cst.BaseExpression] = []
        self.values: list[cst.BaseExpression] = []
        self.hoisted: list[tuple[str, cst.BaseExpression]] = []
        self.last: cst.CSTNode | None = None


def _return_tail(ctx: FixContext, chain: Chain) -> ReturnTail | None:
    """torchdiffeq's `_linear_interp`: `if t == t0: return y0`, `if t == t1: return y1`,
    `slope = ...`, `return y0 + slope * (y1 - y0)`. None unless every statement up to the return is
    one of those, and no hoisted name is read by a test or value that came before it (hoisting
    would change what they read)."""
    if len(chain.tests) != 1 or chain.orelse is not None:
        return None
    tail = ReturnTail()
    first = single_return(chain.bodies[0])
    if first is None:
        return None
    tail.values.append(first)
    read_before = names_in(chain.tests[0]) | names_in(first)
    statement = next_statement(ctx, chain.top)
    while statement is not None:
        value = single_return([statement])
        if value is not None:
            tail.values.append(value)
            tail.last = statement
            return tail if tail.tests or tail.hoisted else None
        if isinstance(statement, cst.If) and statement.orelse is None and isinstance(statement.body, cst.IndentedBlock):
            returned = single_return(statement.body.body)
            if returned is None:
                return None
            tail.tests.append(statement.test)
            tail.values.append(returned)
            read_before |= names_in(statement.test) | names_in(returned)
        else:
            assigned = _assignments([statement])
            if assigned is None:
                return None
            ((name, expression),) = assigned.items()
            if name in read_before or name in names_in(expression):
                return None
            tail.hoisted.append((name, expression))
        statement = next_statement(ctx, statement)
    return None


def _tail_form(ctx: FixContext, chain: Chain, conditions: list[str], tail: ReturnTail, lowering: ConditionLowering) -> Fix | None:
    """Hoist the tail's assignments (pure elementwise, so safe on every path), then return one
    nested `torch.where` over every early return and the final value."""
    require_declared_tensor_return(ctx, chain.top)
    analyzer = lowering.arms
    verdict = Verdict()
    hoisted: list[str] = []
    for name, expression in tail.hoisted:
        info = analyzer.analyze(expression)  # raises Rejected unless pure and elementwise
        if info.risky:
            verdict.assumptions.append(
                f"computes `{name}` on every path; " + AUTOGRAD_NOTE.format(ops=", ".join(f"`{op}`" for op in info.risky))
            )
        hoisted.append(f"{name} = {_expression_code(ctx, expression)}")
    all_conditions = [*conditions, *(lowering.lower(test) for test in tail.tests)]
    arms = [(_expression_code(ctx, value), analyzer.analyze(value)) for value in tail.values]
    verdict.compare(arms, analyzer.known_float)
    returned = _format_statement("return ", _nested_where(all_conditions, [code for code, _ in arms]), "")
    code = "\n".join([*_comments(chain), *hoisted, returned])
    if tail.last is None:
        return None
    edits = [*torch_import(ctx), ctx.replace_statements(chain.top, tail.last, code)]
    return verdict.fix(
        "Return one `torch.where` selection instead of returning early on tensor conditions "
        "(every value is computed)", edits)


# -- ternary ---------------------------------------------------------------------------------------


def _ternary(ctx: FixContext, node: cst.IfExp, facts: LocalFacts) -> Fix | None:
    lowering = _lowering(ctx, facts, node)
    require_no_degenerate_guard([node.test], [[node.body], [node.orelse]])
    condition = lowering.lower(node.test)
    verdict = Verdict()
    _require_declared_type_where_returned(ctx, node)
    arms = [(_expression_code(ctx, arm), lowering.arms.analyze(arm)) for arm in (node.body, node.orelse)]
    verdict.compare(arms, lowering.arms.known_float)
    code = f"torch.where({condition}, {arms[0][0]}, {arms[1][0]})"
    edits = [*torch_import(ctx), ctx.replace_parenthesised(node, code)]
    fix = verdict.fix("Replace the conditional expression on a tensor with `torch.where` (both arms are evaluated)", edits)
    return _with_assumptions(fix, lowering.assumptions)


def _require_declared_type_where_returned(ctx: FixContext, node: cst.BaseExpression) -> None:
    """`return a if c else b` / `return a and b`: the rewritten value is what the function returns,
    so its declared return type must admit a tensor (rejects `-> bool`)."""
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, cst.Return):
            require_declared_tensor_return(ctx, ancestor)
        if isinstance(ancestor, cst.BaseStatement):
            return


# -- `a and b` / `a or b` outside an `if` ----------------------------------------------------------


def _bool_operation(ctx: FixContext, operand: cst.BaseExpression, facts: LocalFacts) -> Fix | None:
    """`(x > 0).any() and torch.isnan(y).any()` -> `torch.logical_and(...)`.

    For 0-d bool tensors `a and b` gives `a` when it is false and `b` otherwise, the same value,
    dtype and shape as `torch.logical_and(a, b)` (likewise `or`), so the fix is safe when every
    operand is provably a 0-d bool tensor. `not t` gives a Python bool where `torch.logical_not`
    gives a tensor: that fix is unsafe.
    """
    node: cst.BaseExpression = operand
    parent = ctx.parent(node)
    while isinstance(parent, cst.BooleanOperation) and not (node is not operand and node.lpar):
        node, parent = parent, ctx.parent(parent)
    if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not) and node is operand:
        node = parent
    if not isinstance(node, cst.BooleanOperation | cst.UnaryOperation):
        return None
    if _branched_on_next(ctx, node):
        return None
    _require_declared_type_where_returned(ctx, node)
    lowering = _lowering(ctx, facts, node)
    code = lowering.lower(node)
    if not all(_bool_scalar(lowering, leaf) for leaf in _bool_leaves(node)):
        return None
    if code.startswith("torch.logical_"):  # one call: the expression's own parentheses go with it
        replacement = ctx.replace_parenthesised(node, code)
    else:  # `~x`: the parentheses the span leaves out stay, keeping the precedence
        replacement = ctx.replace_expression(node, code)
    edits = [*torch_import(ctx), replacement]
    notes = list(lowering.assumptions)
    if isinstance(node, cst.UnaryOperation):
        notes.insert(0, "the value becomes a 0-d bool tensor instead of a Python bool")
    title = "Combine the tensor conditions with `torch.logical_*` instead of Python `and`/`or`/`not`"
    return Fix.of(title, tuple(edits), tuple(notes))


def _branched_on_next(ctx: FixContext, node: cst.BaseExpression) -> bool:
    """`flag = a.any() or b.any()` whose name an `if`/`while` of the function then tests (kornia's
    `size_exceeds_input`): the tensor would only move the break to that test, a hunk with no gain."""
    assign = ctx.parent(node)
    if not isinstance(assign, cst.Assign) or assign.value is not node or len(assign.targets) != 1:
        return False
    target = assign.targets[0].target
    function = enclosing_function(ctx, node)
    if not isinstance(target, cst.Name) or function is None:
        return False
    name = target.value
    found = False

    class Visitor(cst.CSTVisitor):
        def visit_If(self, statement: cst.If) -> None:
            check(statement.test)

        def visit_While(self, statement: cst.While) -> None:
            check(statement.test)

    def check(test: cst.BaseExpression) -> None:
        nonlocal found
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test = test.expression
        found = found or (isinstance(test, cst.Name) and test.value == name)

    function.visit(Visitor())
    return found


def _bool_leaves(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(node, cst.BooleanOperation):
        return [*_bool_leaves(node.left), *_bool_leaves(node.right)]
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return _bool_leaves(node.expression)
    return [node]


def _bool_scalar(lowering: ConditionLowering, node: cst.BaseExpression) -> bool:
    """A provably 0-d bool tensor: a comparison of 0-d tensors, or `.any()`/`.all()`."""
    if isinstance(node, cst.Comparison):
        return lowering.is_scalar_tensor(node)
    if isinstance(node, cst.Call) and lowering.is_scalar_tensor(node):
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else ""
        return name in ("any", "all")
    return False


# -- hoist and select (the LongRoPE shape) ---------------------------------------------------------


def _merge_form(ctx: FixContext, chain: Chain, condition: str, analyzer: ArmAnalyzer) -> Fix | None:
    """Arms `[prep..., S(A)]` and `[prep..., S(B)]` -> `prep...; prep...; S(torch.where(c, A, B))`."""
    first, second = chain.bodies[0], chain.orelse
    assert second is not None
    if not first or not second:
        return None
    last_a, last_b = first[-1], second[-1]
    difference = _single_difference(last_a, last_b)
    if difference is None:
        return None
    value_a, value_b = difference
    if not isinstance(value_a, cst.BaseExpression) or not isinstance(value_b, cst.BaseExpression):
        return None
    if not isinstance(last_a, cst.SimpleStatementLine) or len(last_a.body) != 1:
        return None
    if isinstance(last_a.body[0], cst.Return | cst.Raise):
        return None  # returns are the return form's; raising is never merged
    prep_a, prep_b = list(first[:-1]), list(second[:-1])
    writes_a = _hoistable_writes(prep_a)
    writes_b = _hoistable_writes(prep_b)
    if writes_a is None or writes_b is None:
        return None
    if _reads(value_a) & writes_b or _reads(value_b) & writes_a:
        return None  # a value would see the other arm's preparation
    if any(_reads(s) & writes_b for s in prep_a) or any(_reads(s) & writes_a for s in prep_b):
        return None  # one arm's preparation would see the other's
    if _reads(last_a) & (writes_a | writes_b) - _reads(value_a) - _reads(value_b):
        return None
    verdict = Verdict()
    arms = [(_expression_code(ctx, value_a), analyzer.analyze(value_a)), (_expression_code(ctx, value_b), analyzer.analyze(value_b))]
    verdict.compare(arms, analyzer.known_float)
    hoisted = [dotted(t) for t in map(_write_target, (*prep_a, *prep_b)) if t is not None]
    prepared = ", ".join(f"`{h}`" for h in dict.fromkeys(h for h in hoisted if h))
    if prepared:
        verdict.assumptions.insert(0, f"prepares {prepared} on both paths (a lazily filled cache or an idempotent `.to()`)")
    selected = f"torch.where({condition}, {arms[0][0]}, {arms[1][0]})"
    merged = _replace_node(last_a, value_a, cst.parse_expression(selected))
    merged_code = _wrap_call_statement(ctx, merged.with_changes(leading_lines=()))
    pieces = [_block_code(ctx, s) for s in (*prep_a, *prep_b)]
    comments = _comments(chain, skip_bodies=True)
    code = "\n".join([*comments, *pieces, merged_code.rstrip("\n")])
    edits = [*torch_import(ctx), ctx.replace_statement(chain.top, code)]
    return verdict.fix("Run both arms' preparation and select the differing value with `torch.where` instead of branching on a tensor", edits)


def _hoistable_writes(statements: list[cst.BaseStatement]) -> set[str] | None:
    """Attributes written by preparation steps that are safe to run on both paths, or None."""
    writes: set[str] = set()
    for statement in statements:
        target = _write_target(statement)
        name = dotted(target) if target is not None else None
        if name is None:
            return None
        writes.add(name)
    return writes


def _write_target(statement: cst.BaseStatement) -> cst.BaseExpression | None:
    """The attribute a hoistable step fills: `if not hasattr(o, "a"): o.a[, ...] = v` (a lazy
    cache) or `o.a = o.a.to(...)` (idempotent refresh)."""
    if isinstance(statement, cst.If) and statement.orelse is None and isinstance(statement.body, cst.IndentedBlock):
        test = statement.test
        if not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)):
            return None
        call = test.expression
        if not (isinstance(call, cst.Call) and dotted(call.func) == "hasattr" and len(call.args) == 2):
            return None
        owner, attribute = call.args[0].value, call.args[1].value
        if not isinstance(attribute, cst.SimpleString) or dotted(owner) is None:
            return None
        key = attribute.evaluated_value
        wanted = f"{dotted(owner)}.{key if isinstance(key, str) else key.decode()}"
        body = statement.body.body
        if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine) or len(body[0].body) != 1:
            return None
        assign = body[0].body[0]
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
            return None
        target = assign.targets[0].target
        elements = [e.value for e in target.elements] if isinstance(target, cst.Tuple) else [target]
        if not any(dotted(e) == wanted for e in elements):
            return None
        if any(not isinstance(e, cst.Name | cst.Attribute) for e in elements):
            return None
        if any(isinstance(e, cst.Attribute) and dotted(e) != wanted for e in elements):
            return None
        return next(e for e in elements if dotted(e) == wanted)
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        assign = statement.body[0]
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
            return None
        target = assign.targets[0].target
        value = assign.value
        if not isinstance(target, cst.Attribute) or dotted(target) is None:
            return None
        if (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == "to"
            and dotted(value.func.value) == dotted(target)
            and all(isinstance(a.value, cst.Name | cst.Attribute) for a in value.args)
        ):
            return target
    return None


def _single_difference(a: cst.CSTNode, b: cst.CSTNode) -> tuple[cst.CSTNode, cst.CSTNode] | None:
    """The one pair of differing subtrees of `a` and `b` (ignoring whitespace), or None."""
    found: list[tuple[cst.CSTNode, cst.CSTNode]] = []

    def walk(x: cst.CSTNode, y: cst.CSTNode, parent: cst.CSTNode | None) -> None:
        if _same(x, y):
            return
        xs, ys = _significant_children(x), _significant_children(y)
        atomic = isinstance(x, cst.Attribute | cst.Name)
        if type(x) is type(y) and len(xs) == len(ys) and xs and not atomic and _same_leaf_fields(x, y):
            for cx, cy in zip(xs, ys):
                walk(cx, cy, x)
        elif isinstance(parent, cst.Arg | cst.Assign | cst.AnnAssign) and isinstance(x, cst.BaseExpression):
            found.append((x, y))
        else:
            found.append((x, x))  # a difference outside a value position: not mergeable
            found.append((y, y))

    walk(a, b, None)
    return found[0] if len(found) == 1 else None


def _same(x: cst.CSTNode, y: cst.CSTNode) -> bool:
    module = cst.Module(body=())
    return type(x) is type(y) and _normalized(module, x) == _normalized(module, y)


def _normalized(module: cst.Module, node: cst.CSTNode) -> str:
    code = module.code_for_node(node)
    return "".join(code.split())


def _significant_children(node: cst.CSTNode) -> list[cst.CSTNode]:
    return [c for c in node.children if not isinstance(c, cst.BaseParenthesizableWhitespace | cst.Comma | cst.EmptyLine | cst.TrailingWhitespace | cst.Newline | cst.LeftParen | cst.RightParen | cst.AssignEqual | cst.Dot)]


def _same_leaf_fields(x: cst.CSTNode, y: cst.CSTNode) -> bool:
    for name in ("value", "keyword"):
        vx, vy = getattr(x, name, None), getattr(y, name, None)
        if isinstance(vx, str) and vx != vy:
            return False
    return True


def _replace_node(tree: cst.CSTNode, old: cst.CSTNode, new: cst.CSTNode) -> cst.CSTNode:
    class Replacer(cst.CSTTransformer):
        def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
            return new if original is old else updated

    replaced = tree.visit(Replacer())
    assert isinstance(replaced, cst.CSTNode)
    return replaced


def _reads(node: cst.CSTNode) -> set[str]:
    """Dotted attribute chains and names read in `node`."""
    found: set[str] = set()

    class Visitor(cst.CSTVisitor):
        def visit_Attribute(self, attribute: cst.Attribute) -> bool:
            name = dotted(attribute)
            if name is not None:
                found.add(name)
                return False
            return True

        def visit_Name(self, name: cst.Name) -> None:
            found.add(name.value)

    node.visit(Visitor())
    return found


# -- rendering -------------------------------------------------------------------------------------


def _expression_code(ctx: FixContext, node: cst.BaseExpression) -> str:
    code = ctx.code_for(node).strip()
    return " ".join(part.strip() for part in code.splitlines()) if "\n" in code and not _has_string(node) else code


def _has_string(node: cst.CSTNode) -> bool:
    return any(isinstance(child, cst.BaseString) for child in nodes_in(node))


def _nested_where(conditions: list[str], values: list[str]) -> str:
    """`torch.where(c1, v1, torch.where(c2, v2, v3))` for an elif chain."""
    if len(conditions) == 1 and conditions[0].startswith("torch.logical_not(") and _one_call(conditions[0]):
        # `torch.where(torch.logical_not(c), a, b)` reads better as `torch.where(c, b, a)`.
        return f"torch.where({conditions[0][len('torch.logical_not('):-1]}, {values[1]}, {values[0]})"
    if len(conditions) == 1 and conditions[0].startswith("~") and _one_call(conditions[0][1:]):
        return f"torch.where({conditions[0][1:]}, {values[1]}, {values[0]})"  # `~c`: swap the arms
    expression = values[-1]
    for condition, value in zip(reversed(conditions), reversed(values[:-1])):
        expression = f"torch.where({condition}, {value}, {expression})"
    return expression


def _one_call(code: str) -> bool:
    """`code` is a single call: its first opening parenthesis closes at the very end."""
    depth = 0
    for index, char in enumerate(code):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and char == ")":
            return index == len(code) - 1
    return False


def _format_statement(prefix: str, expression: str, suffix: str) -> str:
    """One line, or the outer call's arguments one per line when it would be too long."""
    line = f"{prefix}{expression}{suffix}"
    if len(line) <= MAX_LINE or not expression.startswith("torch.where(") or "\n" in expression:
        return line
    arguments = _split_arguments(expression[len("torch.where("):-1])
    if arguments is None:
        return line
    inner = "".join(f"    {argument},\n" for argument in arguments)
    return f"{prefix}torch.where(\n{inner}){suffix}"


def _split_arguments(text: str) -> list[str] | None:
    parts: list[str] = []
    depth, start, quote = 0, 0, ""
    for index, char in enumerate(text):
        if quote:
            if char == quote:
                quote = ""
            continue
        if char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    parts.append(text[start:].strip())
    return parts if len(parts) == 3 and all(parts) else None


def _comments(chain: Chain, skip_bodies: bool = False) -> list[str]:
    """Comment lines written inside the chain's arms, kept above the rewrite."""
    found: list[str] = []

    class Visitor(cst.CSTVisitor):
        def visit_Comment(self, comment: cst.Comment) -> None:
            found.append(comment.value)

    if skip_bodies:
        # Statements are copied with their own comments; keep only those on the `if`/`else` lines.
        for node in (chain.top.body, chain.top.orelse):
            header = getattr(node, "header", None) if isinstance(node, cst.IndentedBlock) else None
            if isinstance(node, cst.Else) and isinstance(node.body, cst.IndentedBlock):
                header = node.body.header
            if header is not None and header.comment is not None:
                found.append(header.comment.value)
        return found
    # Comments above the `if` (its leading_lines) stay where they are: outside the replaced range.
    chain.top.with_changes(leading_lines=()).visit(Visitor())
    return found


def _block_code(ctx: FixContext, statement: cst.BaseStatement) -> str:
    """A statement's code with its own comments, continuation lines relative to its first line."""
    return ctx.relative_code(statement).rstrip("\n")


def _wrap_call_statement(ctx: FixContext, statement: cst.CSTNode) -> str:
    """The statement's code; a one-line call statement that got too long gets one argument per line."""
    code = ctx.module.code_for_node(statement).rstrip("\n")
    if len(code) <= MAX_LINE or "\n" in code or not isinstance(statement, cst.SimpleStatementLine):
        return code
    small = statement.body[0]
    if not isinstance(small, cst.Expr) or not isinstance(small.value, cst.Call):
        return code
    call = small.value
    arguments = [
        ctx.module.code_for_node(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT)).strip() for arg in call.args
    ]
    inner = "".join(f"    {argument},\n" for argument in arguments)
    return f"{ctx.module.code_for_node(call.func)}(\n{inner})"


# -- a static prefix of the condition, static temporaries in an arm ---------------------------------

def _static_temporaries(
    ctx: FixContext, chain: Chain, arms: list[dict[str, cst.BaseExpression]], facts: LocalFacts, row: int
) -> dict[str, cst.BaseExpression]:
    """Arm-local Python numbers (`clamp_value = torch.finfo(h.dtype).max - 1000`) that can be
    computed unconditionally: assigned in one arm only, static, and read nowhere outside the `if`."""
    scalars = facts.python_scalars()
    found: dict[str, cst.BaseExpression] = {}
    for arm in arms:
        for name, value in arm.items():
            if sum(name in other for other in arms) != 1 or not is_python_number(value, scalars):
                continue
            if _read_outside(ctx, chain.top, name):
                continue
            found[name] = value
    return found


def _read_outside(ctx: FixContext, statement: cst.CSTNode, name: str) -> bool:
    function = enclosing_function(ctx, statement)
    scope: cst.CSTNode = function if function is not None else ctx.module
    inside: set[int] = set()

    class Inside(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            inside.add(id(node))

    statement.visit(Inside())
    reads: list[cst.Name] = []

    class Reads(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
            return False

        def visit_Name(self, node: cst.Name) -> None:
            if node.value == name and id(node) not in inside:
                reads.append(node)

    scope.visit(Reads())
    return not all(_assigned_earlier_in_block(ctx, read, name, statement) for read in reads)


def _assigned_earlier_in_block(ctx: FixContext, read: cst.Name, name: str, branch: cst.CSTNode) -> bool:
    """Walking back from `read` through its block, an assignment to `name` comes before anything
    holding `branch` (so the read never sees the value the rewrite computes on both paths)."""
    statement = ctx.statement_of(read)
    block = ctx.parent(statement) if statement is not None else None
    body = getattr(block, "body", None)
    if statement is None or not isinstance(body, Sequence):
        return False
    holders = {id(branch), *(id(a) for a in ctx.ancestors(branch))}
    index = next((i for i, item in enumerate(body) if item is statement), None)
    if index is None or id(statement) in holders:
        return False
    for item in reversed(body[:index]):
        if id(item) in holders:
            return False
        if isinstance(item, cst.SimpleStatementLine) and any(
            isinstance(small, cst.Assign) and any(dotted(t.target) == name for t in small.targets) for small in item.body
        ):
            return True
    return False


def _info_calls(node: cst.CSTNode) -> list[cst.Call]:
    found: list[cst.Call] = []

    class Visitor(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            if dotted(call.func) in ("torch.finfo", "torch.iinfo"):
                found.append(call)

    node.visit(Visitor())
    return found
