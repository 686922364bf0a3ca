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

from collections.abc import Sequence
from typing import NamedTuple

import libcst as cst

from graphmend_bot.findings import Finding, Fix
from graphmend_bot.rewrite.bool_facts import proven_bool, where_condition
from graphmend_bot.rewrite.branches.degenerate_guards import require_no_degenerate_guard
from graphmend_bot.rewrite.branches.hoist_and_select import merge_form
from graphmend_bot.rewrite.branches.python_extrema import compared_tensors, lower_extrema, shadowed_builtins
from graphmend_bot.rewrite.branches.static_temporaries import info_calls, static_temporaries
from graphmend_bot.rewrite.branches.where_assumptions import AUTOGRAD_NOTE, Verdict
from graphmend_bot.rewrite.branches.where_rendering import (
    chain_comments,
    expression_code,
    format_statement,
    nested_where,
)
from graphmend_bot.rewrite.branching import (
    ConditionLowering,
    LocalFacts,
    enclosing_function,
    failing_reductions,
    is_bool_tensor_code,
    torch_import,
)
from graphmend_bot.rewrite.context import FixContext, Rejected
from graphmend_bot.rewrite.dtype_facts import floating_names, floating_where_read
from graphmend_bot.rewrite.partial_operators import hoisted_assumption
from graphmend_bot.rewrite.purity import ArmAnalyzer, ArmInfo, dotted, names_in
from graphmend_bot.rewrite.skipped_operands import SkippedOperand
from graphmend_bot.rewrite.statements import Chain, branch_chain, next_statement, single_return
from graphmend_bot.rewrite.static_conditions import floating_leaves, split_static_prefix
from graphmend_bot.rewrite.well_typed import require_declared_tensor_return, require_well_typed


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
            conjunction = lowering.lower_conjunction(dynamic)
            selected = [_selector(lowering, dynamic[0], conjunction) if len(dynamic) == 1 else conjunction]
            body = _assignments(chain.bodies[0])
            if body is None:
                return None
            guard = " and ".join(ctx.code_for(part).strip() for part in static)
            guarded = _assignment_form(ctx, chain, selected, [body, {}], lowering.arms, facts, guard)
            return _with_assumptions(guarded, lowering.assumptions)
    conditions = [_selector(lowering, test) for test in chain.tests]
    if len(conditions) > 1:
        # An elif's condition is evaluated only when the ones before it are false.
        for test, code in zip(chain.tests[1:], conditions[1:], strict=True):
            failing = sorted(failing_reductions(test))
            if failing:
                lowering.assumptions.append(
                    f"evaluates `{code}` on every call (assumes {', '.join(f'`.{r}()`' for r in failing)} "
                    "cannot fail there: a floating-point, non-empty tensor)"
                )
            risks = SkippedOperand(ctx, facts, chain.tests[0]).risks(test)
            if risks:
                lowering.assumptions.append(f"evaluates `{code}` on every call (assumes it cannot raise there: {'; '.join(risks)})")
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
            fix = merge_form(ctx, chain, conditions[0], analyzer)
    return _with_assumptions(fix, lowering.assumptions)


def _selector(lowering: ConditionLowering, test: cst.BaseExpression, code: str | None = None) -> str:
    """`test` lowered (or its lowering `code`) as a `torch.where` condition (`bool_facts`)."""
    lowered = lowering.lower(test) if code is None else code
    return where_condition(test, lowered, lowering.facts, lowering.arms.known_float)


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
    prelude = static_temporaries(ctx, chain, arms, facts, row)
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
        for call in info_calls(temporary):
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
            values.append((expression_code(ctx, value), _analyze_arm(analyzer, value)))
        tensor_values = [pair for pair, node in zip(values, nodes, strict=True) if not _bool_literal(node)]
        if len(tensor_values) < len(values):
            _require_bool_flag(target, [n for n in nodes if not _bool_literal(n)], facts, verdict)
        verdict.compare(tensor_values, analyzer.known_float)
        verdict.copy_of_shared(ctx, chain.top, nodes, facts.python_scalars())
        expression = nested_where(conditions, [code for code, _ in values])
        lines.append(format_statement(f"{target} = ", expression, ""))
    comments = chain_comments(chain)
    statements = [*comments, *(f"{name} = {expression_code(ctx, value)}" for name, value in prelude.items()), *lines]
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
    arms = [(expression_code(ctx, value), analyzer.analyze(value)) for value in values]
    verdict.compare(arms, analyzer.known_float)
    verdict.leaves_shared(ctx, chain.top, values)
    code = "\n".join([*chain_comments(chain), format_statement("return ", nested_where(conditions, [c for c, _ in arms]), "")])
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
        raising = hoisted_assumption(name, info.partial, analyzer.known_float)
        if raising is not None:
            verdict.assumptions.append(raising)
        hoisted.append(f"{name} = {expression_code(ctx, expression)}")
    all_conditions = [*conditions, *(_selector(lowering, test) for test in tail.tests)]
    arms = [(expression_code(ctx, value), analyzer.analyze(value)) for value in tail.values]
    verdict.compare(arms, analyzer.known_float)
    verdict.leaves_shared(ctx, chain.top, tail.values)
    returned = format_statement("return ", nested_where(all_conditions, [code for code, _ in arms]), "")
    code = "\n".join([*chain_comments(chain), *hoisted, returned])
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
    condition = _selector(lowering, node.test)
    verdict = Verdict()
    _require_declared_type_where_returned(ctx, node)
    arms = [(expression_code(ctx, arm), lowering.arms.analyze(arm)) for arm in (node.body, node.orelse)]
    verdict.compare(arms, lowering.arms.known_float)
    verdict.copy_of_shared(ctx, node, [node.body, node.orelse], facts.python_scalars())
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
    operand is provably a 0-d bool tensor (`bool_facts`: `mask.any()` of a uint8 mask is uint8);
    otherwise it assumes so. `not t` gives a Python bool where `torch.logical_not`
    gives a tensor, and so does `a and not t` wherever `a` is true: such fixes are unsafe. `&`/`|`
    evaluate every operand: one `and`/`or` skipped must provably not raise (`skipped_operands`).
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
    leaves = _bool_leaves(node)
    if not all(_bool_scalar(lowering, leaf) for leaf in leaves):
        return None
    for leaf in leaves:
        if not proven_bool(leaf, facts, lowering.arms.known_float):
            # `.any()`/`.all()` of a uint8 tensor is uint8; `torch.logical_*` would give bool
            lowering.assumptions.append(
                f"`{lowering.ctx.code_for(leaf).strip()}` is a bool tensor (`.any()`/`.all()` of a uint8 tensor is uint8, "
                "and `torch.logical_*` gives bool)"
            )
    if code.startswith("torch.logical_"):  # one call: the expression's own parentheses go with it
        replacement = ctx.replace_parenthesised(node, code)
    else:  # `~x`: the parentheses the span leaves out stay, keeping the precedence
        replacement = ctx.replace_expression(node, code)
    edits = [*torch_import(ctx), replacement]
    notes = list(lowering.assumptions)
    if _negates(node):  # `a and not b` is `not b`, a Python bool, wherever `a` is true
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


def _negates(node: cst.BaseExpression) -> bool:
    """A `not` in the `and`/`or`/`not` tree of `node`: its value is then a Python bool on some path."""
    if isinstance(node, cst.BooleanOperation):
        return _negates(node.left) or _negates(node.right)
    return isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not)


def _bool_leaves(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(node, cst.BooleanOperation):
        return [*_bool_leaves(node.left), *_bool_leaves(node.right)]
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return _bool_leaves(node.expression)
    return [node]


def _bool_scalar(lowering: ConditionLowering, node: cst.BaseExpression) -> bool:
    """A provably 0-d tensor whose truth `and`/`or` test: a comparison, or `.any()`/`.all()`
    (bool unless they reduce a uint8 tensor: `bool_facts.proven_bool` tells)."""
    if isinstance(node, cst.Comparison):
        return lowering.is_scalar_tensor(node)
    if isinstance(node, cst.Call) and lowering.is_scalar_tensor(node):
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else ""
        return name in ("any", "all")
    return False
