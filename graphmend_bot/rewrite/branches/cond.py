"""Branches whose arms call modules or functions (or are not elementwise): `torch.cond`.

    if x.sum() > 0:                      def apply_proj():
        y = self.proj(x)          ->         return self.proj(x)
    else:                                def apply_norm():
        y = self.norm(x) * 2                 return self.norm(x) * 2
                                         y = torch.cond(x.sum() > 0, apply_proj, apply_norm)

Measured on torch 2.13 (CPU), which shapes what is emitted:

- Branch functions may close over module parameters and local tensors: Dynamo lifts them into the
  graph, gradients flow to them (checked against the eager branch, bit for bit). So operands are
  passed only for names an arm both reads and assigns (they must be parameters of the nested
  function, or Python would make them unbound locals); `operands` must hold tensors only.
- A branch may not return one of its inputs unchanged, nor a view of one (“Encountered aliasing during higher order
  op tracing”, on every call), so such a value is returned as `x.clone()`, `x.detach().clone()`.
- Both branches are traced even in eager mode, on every call; outputs of different structure,
  shape, dtype or device, mutation of inputs or module state, and Python side effects raise an
  error. So the rewrite is written only where the outputs are proven alike (cond_outputs.py; an
  early `return torch.tensor(0, device=d)` against a float division made every call raise "expected
  same dtype"), and never over elementwise arms, whose branch-free form is `torch.where` (if the
  predicate rewrite refused it, torch.cond would not remove its reason). It cannot prove the arms
  pure, so the fix is unsafe (fix safety: GM101's rule docs, `graphmend rule GM101`).
- Eager cost: the trace of both branches makes each eager call slower (a small CPU module's
  forward: 22 us -> 1.9 ms, 86x, under load on 2 shared cores; benchmarks/cond_eager_cost.py);
  the fix states it as an assumption.
- A function declared to return a non-tensor (`-> bool`) never gets `return torch.cond(...)`.
- Autograd: outputs and gradients match the eager branch bit for bit, except that parameters
  used only by the branch not taken get a zero `.grad` instead of None (an optimizer with
  momentum or weight decay then updates them); the fix states it as an assumption.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Sequence

import libcst as cst

from graphmend_bot.findings import Finding, Fix
from graphmend_bot.rewrite.aliasing import may_return_input
from graphmend_bot.rewrite.branches.cond_outputs import AlikeOutputs
from graphmend_bot.rewrite.branches.where_assumptions import PARAMETER_READ
from graphmend_bot.rewrite.branching import ConditionLowering, LocalFacts, enclosing_function, torch_import
from graphmend_bot.rewrite.class_attributes import computes_new_tensor
from graphmend_bot.rewrite.context import FixContext, Rejected
from graphmend_bot.rewrite.purity import ArmAnalyzer, dotted, names_in
from graphmend_bot.rewrite.statements import Chain, branch_chain, next_statement, single_return
from graphmend_bot.rewrite.well_typed import (
    TypeEvidence,
    changes_shape,
    require_declared_tensor_return,
    require_well_typed,
)

# Calls that never belong in a traced branch (side effects, host copies, I/O).
FORBIDDEN_CALLS = frozenset({
    "print", "open", "input", "exec", "eval", "setattr", "delattr", "globals", "locals", "vars",
    "breakpoint", "item", "tolist", "numpy", "save", "load", "backward", "register_buffer",
    "register_parameter", "warn", "debug", "info", "warning", "warning_once", "error", "exception",
    "critical", "log", "write", "append", "extend", "insert", "pop", "update", "add_module",
})

BUILTINS = frozenset(dir(builtins))

TITLE = "Branch with `torch.cond` instead of a Python `if` on a tensor"
ASSUMPTIONS = (
    "both branches are traced and must be free of side effects (torch.cond raises otherwise; their "
    "outputs are proven alike in dtype, shape and device)",
    "parameters used only by the branch not taken get zero gradients instead of none",
    "eager calls get slower: torch.cond traces both branches on every eager call (a small CPU module: "
    "22 us -> 1.9 ms per call, 86x, on torch 2.13; benchmarks/cond_eager_cost.py)",
)


def build_fix(ctx: FixContext, finding: Finding) -> Fix | None:
    try:
        return cond_fix(ctx, finding)
    except Rejected:
        return None


def cond_fix(ctx: FixContext, finding: Finding) -> Fix | None:
    """The fix, None where the finding is not a branch this rewrite takes; raises Rejected, with
    the reason, where it is one but the rewrite is not provably right."""
    test = ctx.node_at(finding)
    statement = ctx.parent(test) if test is not None else None
    if not isinstance(statement, cst.If) or statement.test is not test:
        return None
    chain = branch_chain(ctx, statement)
    if chain is None or len(chain.tests) != 1 or _inside_loop(ctx, statement):
        return None
    facts = LocalFacts.of(ctx, enclosing_function(ctx, statement))
    require_well_typed(ctx, facts, statement, chain.tests[0])
    lowering = ConditionLowering(ctx, facts)
    condition = lowering.lower(chain.tests[0])
    fix = _build(ctx, chain, condition, facts)
    # torch.cond evaluates the whole condition: an operand `and`/`or` skipped too (its assumptions)
    return fix.assuming(*lowering.assumptions) if fix is not None else None


def _require_no_branch_free_form(facts: LocalFacts, values: Sequence[cst.BaseExpression]) -> None:
    """Raise Rejected when every value the arms compute is elementwise: `torch.where` is their
    branch-free form (the predicate rewrite, tried first, refused it for its own reason, which
    torch.cond would not remove), and torch.cond costs every eager call far more."""
    analyzer = ArmAnalyzer(facts.python_scalars())
    for value in values:
        try:
            analyzer.analyze(value)
        except Rejected:
            return
    raise Rejected("the arms are elementwise: their branch-free form is `torch.where`, not torch.cond")


def _inside_loop(ctx: FixContext, statement: cst.If) -> bool:
    """The `if` runs in a loop of its function: torch.cond there defines two branch functions per
    iteration, heavier than the `if` a maintainer reads (kornia's per-block refinement, HUNKS #16),
    so the finding keeps its advice instead."""
    for ancestor in ctx.ancestors(statement):
        if isinstance(ancestor, cst.FunctionDef | cst.ClassDef | cst.Module):
            return False
        if isinstance(ancestor, cst.For | cst.While):
            return True
    return False


def _build(ctx: FixContext, chain: Chain, condition: str, facts: LocalFacts) -> Fix | None:
    true_body = list(chain.bodies[0])
    false_body = list(chain.orelse) if chain.orelse is not None else []
    returned = _returned(ctx, chain)
    last: cst.CSTNode = chain.top
    alike = AlikeOutputs(ctx, facts, chain.top)
    if returned is not None:
        (true_value, false_value), following = returned
        require_declared_tensor_return(ctx, chain.top)
        evidence = TypeEvidence(ctx, facts, chain.top)
        for value in (true_value, false_value):
            # Precondition: each branch returns a tensor (`return False` never becomes `False.clone()`).
            evidence.require_tensors(value, "a branch's returned value")
        _require_no_branch_free_form(facts, (true_value, false_value))
        alike.require_alike([(true_value, false_value)])
        if following is not None:
            last = following
        branch_names = [_branch_name(true_value, "if"), _branch_name(false_value, "else")]
        returns = [("", _returned_code(ctx, value)) for value in (true_value, false_value)]
        functions, operands = _functions(ctx, chain.top, branch_names, returns, [])
        names = branch_names
        result = _wrapped("return torch.cond(", f"{condition}, {names[0]}, {names[1]}{operands}", ctx.indent_unit)
    else:
        for body in (true_body, false_body):
            _check_arm(body)
        targets = list(dict.fromkeys(t for body in (true_body, false_body) for t in _targets(body)))
        if not targets or set(targets) & facts.python_scalars():
            return None  # torch.cond branches return tensors only
        _require_no_branch_free_form(facts, [value for body in (true_body, false_body) for value in _assigned_values(body)])
        alike.require_alike(
            [(cst.Name(target), cst.Name(target)) for target in targets],
            (alike.bind(true_body), alike.bind(false_body)),
            [f"`{target}`" for target in targets],
        )
        row = ctx.position(chain.top).start.line
        read = set().union(*(_value_reads(body) for body in (true_body, false_body)))
        outputs: list[tuple[str, str]] = []
        names = []
        for body, fallback in ((true_body, "if"), (false_body, "else")):
            assigned = _targets(body)
            values = []
            for target in targets:
                if target in assigned:
                    values.append(target)
                elif facts.bound_before(target, row):
                    values.append(f"{target}.clone()")
                else:
                    return None  # no value on this path
            outputs.append(_body_and_value(ctx, body, targets, values))
            names.append(_branch_name(body[0] if body else None, fallback, "_".join(targets), condition)
                         if assigned else f"keep_{'_'.join(targets)}")
        params = [t for t in targets if t in read or any(t not in _targets(b) for b in (true_body, false_body))]
        if any(not facts.bound_before(t, row) for t in params):
            return None
        functions, operands = _functions(ctx, chain.top, names, outputs, params)
        result = _wrapped(f"{_tuple(targets)} = torch.cond(", f"{condition}, {names[0]}, {names[1]}{operands}", ctx.indent_unit)
    # Precondition: both branches return one shape. A mask or index filter, or an operation
    # whose shape depends on data, makes torch.cond raise even in eager mode.
    for body in (true_body, false_body):
        for statement in body:
            reason = changes_shape(statement)
            if reason is not None:
                raise Rejected(f"an arm {reason}")
    if returned is not None:
        for value in returned[0]:
            reason = changes_shape(value)
            if reason is not None:
                raise Rejected(f"a branch {reason}")
    code = "\n".join([functions, "", result]) if functions else result
    edits = [*torch_import(ctx), ctx.replace_statements(chain.top, last, code)]
    return Fix.of(TITLE, tuple(edits), ASSUMPTIONS)


def _returned(ctx: FixContext, chain: Chain) -> tuple[tuple[cst.BaseExpression, cst.BaseExpression], cst.CSTNode | None] | None:
    true_value = single_return(chain.bodies[0])
    if true_value is None:
        return None
    if chain.orelse is not None:
        false_value = single_return(chain.orelse)
        if false_value is None:
            return None
        _check_arms(true_value, false_value)
        return (true_value, false_value), None
    following = next_statement(ctx, chain.top)
    false_value = single_return([following]) if following is not None else None
    if false_value is None or following is None:
        return None
    _check_arms(true_value, false_value)
    return (true_value, false_value), following


def _check_arms(*values: cst.BaseExpression) -> None:
    """Both returned values must be expressions a branch function can return, and neither may pick a parameter."""
    for value in values:
        _check_expression(value)
    for value in values:
        _reject_parameter_selection(value)


def _reject_parameter_selection(value: cst.BaseExpression) -> None:
    """A branch whose value is a module's parameter (`self.embed.weight`): torch.cond gives the
    one not selected a zero gradient where the branch gave it none (measured on MONAI VISTA3D's
    class embeddings, through the predicate rewrite that selected them the same way)."""
    name = dotted(value)
    if name is not None and PARAMETER_READ.fullmatch(name):
        raise Rejected(f"`{name}` is a parameter selected by the branch")


def _returned_code(ctx: FixContext, value: cst.BaseExpression) -> str:
    """A branch may not return an input unchanged, nor a view of one: such a value is cloned."""
    code = ctx.code_for(value).strip()
    return f"{code}.clone()" if _may_return_input(ctx, value) else code


def _check_arm(body: Sequence[cst.BaseStatement]) -> None:
    """Raise Rejected unless every statement is `name = expression` without side effects."""
    for statement in body:
        if not isinstance(statement, cst.SimpleStatementLine):
            raise Rejected("control flow inside an arm")
        for small in statement.body:
            if not isinstance(small, cst.Assign):
                raise Rejected("an arm does more than assign local names")
            for target in small.targets:
                elements = target.target.elements if isinstance(target.target, cst.Tuple) else [target.target]
                for element in elements:
                    value = element.value if isinstance(element, cst.Element) else element
                    if not isinstance(value, cst.Name):
                        raise Rejected("an arm stores into an attribute or subscript")
            _check_expression(small.value)
            _reject_parameter_selection(small.value)
            if _not_a_tensor(small.value):
                raise Rejected("an arm assigns a value that is not a tensor")


def _not_a_tensor(value: cst.BaseExpression) -> bool:
    """Literals and containers: torch.cond branches must return tensors."""
    if isinstance(value, cst.Name):
        return value.value in ("None", "True", "False")
    return isinstance(value, cst.BaseNumber | cst.BaseString | cst.Tuple | cst.List | cst.Dict | cst.Set | cst.Lambda)


def _check_expression(node: cst.CSTNode) -> None:
    class Visitor(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            name = dotted(call.func) or ""
            leaf = name.rsplit(".", 1)[-1] if name else (call.func.attr.value if isinstance(call.func, cst.Attribute) else "")
            if leaf in FORBIDDEN_CALLS or (leaf.endswith("_") and not leaf.endswith("__")):
                raise Rejected(f"`{leaf}` has side effects")

        def visit_Lambda(self, node: cst.Lambda) -> None:
            raise Rejected("lambda in an arm")

        def visit_Yield(self, node: cst.Yield) -> None:
            raise Rejected("yield in an arm")

        def visit_Await(self, node: cst.Await) -> None:
            raise Rejected("await in an arm")

        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            raise Rejected("assignment expression in an arm")

    node.visit(Visitor())


def _targets(body: Sequence[cst.BaseStatement]) -> list[str]:
    found: list[str] = []
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign):
                    for target in small.targets:
                        found.extend(names_in(target.target) if isinstance(target.target, cst.Tuple) else [getattr(target.target, "value", "")])
    return [t for t in dict.fromkeys(found) if t]


def _assigned_values(body: Sequence[cst.BaseStatement]) -> list[cst.BaseExpression]:
    return [small.value for statement in body if isinstance(statement, cst.SimpleStatementLine)
            for small in statement.body if isinstance(small, cst.Assign)]


def _value_reads(body: Sequence[cst.BaseStatement]) -> set[str]:
    found: set[str] = set()
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign):
                    found |= names_in(small.value)
    return found


def _body_and_value(ctx: FixContext, body: Sequence[cst.BaseStatement], targets: list[str], values: list[str]) -> tuple[str, str]:
    """The branch body and returned value; a lone final `y = expr` is returned directly."""
    if len(targets) == 1 and body and values == targets:
        last = body[-1]
        if isinstance(last, cst.SimpleStatementLine) and len(last.body) == 1 and isinstance(last.body[0], cst.Assign):
            assign = last.body[0]
            target = assign.targets[0].target
            if len(assign.targets) == 1 and isinstance(target, cst.Name) and target.value == targets[0] and not last.leading_lines:
                value = assign.value
                code = ctx.code_for(value).strip()
                if _may_return_input(ctx, value):
                    code += ".clone()"  # a branch may not return an input unchanged, nor a view of one
                return _statements_code(ctx, body[:-1]), code
    aliases = _aliases(ctx, body)
    values = [f"{value}.clone()" if value in aliases else value for value in values]
    return _statements_code(ctx, body), _tuple(values)


def _aliases(ctx: FixContext, body: Sequence[cst.BaseStatement]) -> set[str]:
    """Names whose last assignment in `body` binds another name or attribute, or a view of one (an alias)."""
    last: dict[str, cst.BaseExpression] = {}
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign):
                    for target in small.targets:
                        if isinstance(target.target, cst.Name):
                            last[target.target.value] = small.value
    return {name for name, value in last.items() if _may_return_input(ctx, value)}


def _may_return_input(ctx: FixContext, value: cst.BaseExpression) -> bool:
    """torch.cond raises on every call when a branch returns an input itself or a view of it
    (aliasing during higher order op tracing): `x`, `x.T`, `x.float()` on a float `x`,
    `self.skip(x)` with an `nn.Identity` or `nn.Dropout` in eval, a user function returning `x`."""
    return may_return_input(value, lambda call: computes_new_tensor(ctx, call))


def _wrapped(opening: str, arguments: str, indent: str) -> str:
    """`opening + arguments + ")"`, with the arguments on their own line when it is long."""
    line = f"{opening}{arguments})"
    if len(line) <= 100:
        return line
    return f"{opening}\n{indent}{arguments},\n)"


def _branch_name(node: cst.CSTNode | None, fallback: str, target: str = "", condition: str = "") -> str:
    """`<target>_via_<callee>` (or `apply_<callee>` for returns) for the first module or function
    the arm calls; `keep_<name>` for an arm that returns a name unchanged; for other arms of a
    condition that is a name, `when_<name>` / `unless_<name>` (`when_is_t2v` reads better than
    `encoder_hidden_states_3_encoder_attention_mask_3_if_true`)."""
    if isinstance(node, cst.Name):
        return f"keep_{node.value}"
    if node is not None:
        found: list[str] = []

        class Visitor(cst.CSTVisitor):
            def visit_Call(self, call: cst.Call) -> None:
                func = call.func
                if isinstance(func, cst.Name) and func.value not in BUILTINS:
                    found.append(func.value)  # a function
                elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
                    found.append(func.attr.value)  # a submodule or method

        node.visit(Visitor())
        if found:
            callee = found[0].lstrip("_")
            return f"{target}_via_{callee}" if target else f"apply_{callee}"
    if condition.isidentifier():
        return f"when_{condition}" if fallback == "if" else f"unless_{condition}"
    branch = "true" if fallback == "if" else "false"
    return f"{target}_if_{branch}" if target else f"{branch}_branch"


def _functions(ctx: FixContext, where: cst.CSTNode, names: list[str], outputs: list[tuple[str, str]], params: list[str]) -> tuple[str, str]:
    """The two nested function definitions and the operands argument (`, (x,)` or "")."""
    if names[0] == names[1]:
        names[0], names[1] = f"{names[0]}_if", f"{names[1]}_else"
    function = enclosing_function(ctx, where)
    taken = ctx.code_for(function) if function is not None else ctx.source
    for index, name in enumerate(names):
        while re.search(rf"\b{re.escape(name)}\b", taken):
            name += "_branch"
        names[index] = name
    signature = ", ".join(params)
    unit = ctx.indent_unit
    pieces = []
    for name, (body, value) in zip(names, outputs, strict=True):
        lines = [f"def {name}({signature}):"]
        lines += [unit + line if line.strip() else "" for line in body.split("\n") if body]
        lines.append(f"{unit}return {value}")
        pieces.append("\n".join(lines))
    operands = f", ({signature},)" if params else ""
    return "\n\n".join(pieces), operands


def _statements_code(ctx: FixContext, body: Sequence[cst.BaseStatement]) -> str:
    return "\n".join(ctx.relative_code(statement).strip("\n") for statement in body)


def _tuple(values: list[str]) -> str:
    return values[0] if len(values) == 1 else ", ".join(values)
