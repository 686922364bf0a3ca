"""Python I/O in traced code (print, logger methods, warnings.warn): guard it or defer it.

Two strategies, chosen by `io-strategy` in the configuration:

- "guard" (default): wrap the statement in `if not torch.compiler.is_compiling():`, as the
  transformers maintainers do (reusing an `is_torchdynamo_compiling` helper the file already
  imports). Eager behaviour is unchanged; under torch.compile the message is skipped, and so is
  the evaluation of the call's arguments.
- "defer": route the call through a small module-level function registered in
  `torch._dynamo.config.reorderable_logging_functions`. Dynamo does not trace such a function:
  it records the call with its arguments and makes it when the compiled code has run, so the
  message is kept and emitted after the graph. Eager behaviour is unchanged; under compile the
  message moves after the frame's later side effects, and the arguments must be tensors,
  constants or format strings (otherwise Dynamo still breaks there). A category stays in the
  body of a helper of its own (`_future_warning_after_graph`). Where deferral cannot be
  expressed (a logger that is not a module-level name), the fix falls back to the guard and says why.

A deprecation notice follows `deprecation-notices` instead (advice by default: compiled callers need
it; `guard` on its own line, as transformers guards its own; `defer`, io_deprecation.py). Measured
limit of both deferrals on torch 2.13: Dynamo makes the call only from the compiled frame itself;
from a function it inlines the message is dropped under compile, as the guard drops it.
A `*_once` notice (`logger.warning_once("... is deprecated")`) is the exception, whatever
`deprecation-notices` says: notice_once.py routes it through a `torch.compiler.assume_constant_result`
helper that Dynamo runs while tracing, so the message is emitted once, compiled or not, from inlined
frames too. Nothing is hidden and nothing moves past the graph, which is why the policy (chosen
between hiding and deferring) does not apply; safe where the once-per-process contract is proven.
Where it is proven, a `*_once` diagnostic (`logger.warning_once("... is ignored")`) takes that form
too instead of the guard, which would hide it from compiled callers; unproven, the guard stays.

Fix safety: the GM401-GM403 rule docs (`graphmend rule GM401`); each fix states its assumptions.
"""

from __future__ import annotations

from typing import cast

import libcst as cst

from graphmend_bot.findings import Edit, Finding, Fix
from graphmend_bot.rewrite.context import FixContext, FixUnavailable
from graphmend_bot.rewrite.python_io import io_deprecation as deferral
from graphmend_bot.rewrite.python_io import io_purpose as purpose
from graphmend_bot.rewrite.python_io import notice_once
from graphmend_bot.rewrite.python_io.io_arguments import ArgumentPurity
from graphmend_bot.rewrite.python_io.io_purpose import IoCall
from graphmend_bot.rewrite.strategies import BuildFix, strategies_for
from graphmend_bot.rewrite.well_typed import caller_assumptions

DYNAMO_GUARD_HELPERS = ("is_torchdynamo_compiling",)
REGISTRATION = deferral.REGISTRATION

def build_print_fix(ctx: FixContext, finding: Finding) -> Fix | None:
    """A `print` (the finding is its call)."""
    return _build_fix(ctx, finding, "print")


def build_logger_fix(ctx: FixContext, finding: Finding) -> Fix | None:
    """A logger call such as `logger.warning(...)` (the finding is its call)."""
    return _build_fix(ctx, finding, "logger")


def build_warning_fix(ctx: FixContext, finding: Finding) -> Fix | None:
    """A `warnings.warn` (the finding is its call)."""
    return _build_fix(ctx, finding, "warning")


def _build_fix(ctx: FixContext, finding: Finding, construct: IoCall, alone: bool = False) -> Fix | None:
    """`alone`: the fix this statement gets on its own, never grouped with its neighbours."""
    call = ctx.node_at(finding)
    if not isinstance(call, cst.Call):
        return None
    statement = _own_statement(ctx, call)
    if statement is None:
        return None  # the call's value is used, or it shares its line: no statement-level rewrite
    if _inside_deferral_helper(ctx, call):
        return None
    if purpose.keep_as_written(ctx, finding, call, construct) is not None:
        return None  # output, an export-time warning, a rare-branch signal or no torch: advice only
    if _notice(ctx, call) is not None:
        # A `*_once` notice runs while Dynamo traces (notice_once.py): kept, whatever the policy.
        return notice_once.keep_notice(ctx, call) or _deprecation_fix(ctx, construct, call, statement)
    kept = _proven_once_notice(ctx, call)
    if kept is not None:
        return kept  # emitted once under compile too, where a guard would hide it
    if ctx.config.io_strategy == "defer":
        return _defer(ctx, construct, call, statement)
    return _guard(ctx, call, statement, reason=None, alone=alone)


def _deprecation_fix(ctx: FixContext, construct: IoCall, call: cst.Call,
                     statement: cst.SimpleStatementLine) -> Fix | None:
    """A deprecation notice is the project's call (`deprecation-notices`, GM403's rule docs): left
    with its advice by default, since compiled callers need it too; guarded on its own where the
    project skips its notices under compile (transformers' `deprecate_kwarg` does); or deferred,
    which keeps it only where the notice's function is the compiled frame itself."""
    choice = ctx.config.deprecation_notices
    if choice == "defer":
        return deferral.defer_notice(ctx, construct, call)
    if choice == "guard":
        return _guard(ctx, call, statement, reason=None, alone=True)
    return None


def _own_statement(ctx: FixContext, call: cst.Call) -> cst.SimpleStatementLine | None:
    expression = ctx.parent(call)
    if not isinstance(expression, cst.Expr) or expression.value is not call:
        return None
    line = ctx.parent(expression)
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    if not isinstance(ctx.parent(line), cst.IndentedBlock):
        return None  # module level: nothing compiles it
    return line


# -- guard ---------------------------------------------------------------------------------------


def _guard(ctx: FixContext, call: cst.Call, statement: cst.SimpleStatementLine, reason: str | None,
           alone: bool = False) -> Fix | None:
    helper = _imported_guard_helper(ctx)
    edits: list[Edit] = []
    if helper is None:
        if ctx.binds_locally(call, "torch"):
            return None  # the function's own `import torch` may come after the guard
        condition = "torch.compiler.is_compiling()"
        import_edit = ctx.ensure_import("import torch")
        if import_edit is not None:
            edits.append(import_edit)
    else:
        condition = f"{helper}()"
    # Consecutive I/O statements share one guard: it is built once and is every one of their fixes.
    run = _io_run(ctx, statement) if reason is None and not alone else [statement]
    key = ("io guard", id(run[0]), id(run[-1]), condition, reason)
    if key not in ctx.memo:
        ctx.memo[key] = _run_guard(ctx, run, condition, reason, edits)
    return cast(Fix | None, ctx.memo[key])


def _run_guard(ctx: FixContext, run: list[cst.SimpleStatementLine], condition: str, reason: str | None,
               edits: list[Edit]) -> Fix | None:
    calls = [_statement_call(line) for line in run]
    try:
        enclosing = _sole_body_of_if(ctx, run)
        if enclosing is not None and ArgumentPurity(ctx, enclosing).expression(enclosing.test):
            # `if flag: logger.warning(...)` reads better as one condition than as nested ifs. The
            # guard goes first: `and` evaluates left to right, and a tensor condition before the
            # guard would still break the graph under compile. So under compile the test is no
            # longer evaluated: only a test that just reads values joins the guard (`if
            # self.step():`, `if next(it):`, `if (n := ...) > 1:` keep running, the guard nested).
            test = ctx.code_for(enclosing.test).strip()
            if not isinstance(enclosing.test, (cst.Name, cst.Attribute, cst.Call, cst.Comparison, cst.UnaryOperation)):
                test = f"({test})"
            edits.append(ctx.replace_expression(enclosing.test, f"not {condition} and {test}"))
        else:
            body = ctx.indent_block(ctx.relative_span_code(run[0], run[-1]))
            edits.append(ctx.replace_statements(run[0], run[-1], f"if not {condition}:\n{body}"))
    except FixUnavailable:
        return None
    names = list(dict.fromkeys(f"`{ctx.code_for(c.func)}(...)`" for c in calls if c is not None))
    pure = all(c is not None and ArgumentPurity(ctx, c).call_arguments(c) for c in calls)
    title = f"Guard {', '.join(names)} with `if not {condition}:`: eager behaviour unchanged, skipped under torch.compile"
    if reason is not None:
        assumptions: tuple[str, ...] = (f"not deferred: {reason}",)
    elif not pure:
        assumptions = ("evaluating its arguments may have effects (a call, an assignment, consuming an iterator); "
                       "they are no longer evaluated under compile",)
    else:
        assumptions = ()
    # A deprecation notice anywhere in the guarded run makes the guard unsafe (io_purpose).
    hidden = {notice for c in calls if c is not None and (notice := _notice(ctx, c))}
    return Fix.of(title, tuple(edits), (*assumptions, *sorted(hidden)), wording="note")


def _sole_body_of_if(ctx: FixContext, run: list[cst.SimpleStatementLine]) -> cst.If | None:
    """The else-less `if` whose whole body is `run`, when there is one."""
    block = ctx.parent(run[0])
    owner = ctx.parent(block) if block is not None else None
    if not isinstance(block, cst.IndentedBlock) or not isinstance(owner, cst.If) or owner.orelse is not None:
        return None
    if len(block.body) != len(run) or any(a is not b for a, b in zip(block.body, run)):
        return None
    return owner


def _statement_call(line: cst.CSTNode) -> cst.Call | None:
    if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
        small = line.body[0]
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            return small.value
    return None


def _proven_once_notice(ctx: FixContext, call: cst.Call) -> Fix | None:
    """notice_once's rewrite of a `*_once` diagnostic where the once-per-process contract is proven
    (a safe fix): it loses nothing, where a guard drops the message under compile. Unproven, the
    safe guard stays the fix."""
    kept = notice_once.keep_notice(ctx, call)
    return kept if kept is not None and kept.applicability == "safe" else None


def _io_run(ctx: FixContext, statement: cst.SimpleStatementLine) -> list[cst.SimpleStatementLine]:
    """`statement` and the adjacent statements that share its guard: each must itself be a finding
    being fixed (selected, not suppressed) whose own fix is a guard of the same safety. Text alone
    would pull in a suppressed line, or a `print(..., file=f)` that is the program's output."""
    own = _alone_applicability(ctx, statement)
    block = ctx.parent(statement)
    assert isinstance(block, cst.IndentedBlock)
    body = list(block.body)
    first = last = body.index(statement)
    if own is None:
        return [statement]
    while first > 0 and _alone_applicability(ctx, body[first - 1]) == own:
        first -= 1
    while last + 1 < len(body) and _alone_applicability(ctx, body[last + 1]) == own:
        last += 1
    return cast(list[cst.SimpleStatementLine], body[first : last + 1])


def _alone_applicability(ctx: FixContext, line: cst.CSTNode) -> str | None:
    """The applicability of the guard `line` gets on its own when it is an I/O finding being fixed
    and that guard may be shared; None otherwise."""
    key = ("io alone", id(line))
    if key not in ctx.memo:
        ctx.memo[key] = _alone_guard(ctx, line)
    return cast(str | None, ctx.memo[key])


def _alone_guard(ctx: FixContext, line: cst.CSTNode) -> str | None:
    call = _statement_call(line)
    if call is None or _notice(ctx, call) is not None:
        return None  # a deprecation notice is the project's call, never guarded with its neighbours
    if _proven_once_notice(ctx, call) is not None:
        return None  # kept by its own fix, not guarded with its neighbours
    found = _io_findings(ctx).get(id(call))
    if found is None:
        return None
    finding, construct = found
    fix = _build_fix(ctx, finding, construct, alone=True)
    return fix.assuming(*caller_assumptions(finding)).applicability if fix is not None else None


def _notice(ctx: FixContext, call: cst.Call) -> str | None:
    """purpose.deprecation_notice of `call`, asked once per call: a guard shared by a run of N
    statements asks about each of them for every fix it is part of."""
    key = ("io notice", id(call))
    if key not in ctx.memo:
        ctx.memo[key] = purpose.deprecation_notice(call)
    return cast(str | None, ctx.memo[key])


def _io_findings(ctx: FixContext) -> dict[int, tuple[Finding, IoCall]]:
    """The I/O findings being fixed in this file, by their call node."""
    key = ("io findings",)
    if key not in ctx.memo:
        constructs: dict[BuildFix, IoCall] = {
            build_print_fix: "print", build_logger_fix: "logger", build_warning_fix: "warning",
        }
        found: dict[int, tuple[Finding, IoCall]] = {}
        for finding in ctx.findings:
            construct = next((constructs[b] for _, b in strategies_for(finding.code) if b in constructs), None)
            node = ctx.node_at(finding) if construct is not None else None
            if node is not None and construct is not None:
                found[id(node)] = (finding, construct)
        ctx.memo[key] = found
    return cast(dict[int, tuple[Finding, IoCall]], ctx.memo[key])


def _imported_guard_helper(ctx: FixContext) -> str | None:
    for statement in ctx.module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                for alias in small.names:
                    name = alias.evaluated_alias or alias.evaluated_name
                    if alias.evaluated_name in DYNAMO_GUARD_HELPERS:
                        return name
    return None


# -- defer ---------------------------------------------------------------------------------------


def _defer(ctx: FixContext, construct: IoCall, call: cst.Call, statement: cst.SimpleStatementLine) -> Fix | None:
    func = call.func
    method_arg = ""
    anchor: cst.CSTNode | None = None
    if construct == "print":
        helper, helper_code, emit = "_print_after_graph", _PRINT_HELPER, "print"
    elif construct == "warning":
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            # A category stays in the body of a helper of its own; the stacklevel is carried.
            deferred = deferral.defer_warning(ctx, call, ("under torch.compile the message is emitted after the graph",))
            return deferred or _guard(ctx, call, statement, reason="its arguments are not ones a deferral "
                                      "helper takes (message, category, stacklevel)")
        helper, helper_code, emit = "_warn_after_graph", _WARN_HELPER, "warnings.warn"
    else:
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)):
            return _guard(ctx, call, statement, reason="the logger is not a module-level name")
        logger = func.value.value
        anchor = deferral.module_assignment(ctx, logger)
        if anchor is None or not ctx.resolves_to_module(func.value):
            return _guard(ctx, call, statement, reason=f"`{logger}` is not the logger assigned at module level")
        helper = deferral.log_helper_name(logger)
        helper_code = deferral.LOG_HELPER.format(helper="{helper}", logger=logger)
        emit = f"{logger}.{func.attr.value}"
        method_arg = func.attr.value
    edits: list[Edit] = []
    for module in ("torch", "warnings") if construct == "warning" else ("torch",):
        import_edit = ctx.ensure_import(f"import {module}")
        if import_edit is not None:
            edits.append(import_edit)
    if not _defines(ctx, helper):
        code = helper_code.format(helper=helper) + "\n\n" + REGISTRATION.format(name=helper) + "\n"
        edits.append(deferral.module_insertion(ctx, anchor, code))
    # Only the callee changes (and the logger method becomes the first argument): the call's
    # arguments and layout stay as written.
    edits.append(ctx.replace_expression(func, helper))
    if method_arg:
        edits.append(deferral.method_argument(ctx, call, method_arg))
    title = (
        f"Defer `{emit}(...)` through `{helper}`, registered in reorderable_logging_functions: "
        "eager behaviour unchanged"
    )
    return Fix.of(title, tuple(edits), ("under torch.compile the message is emitted after the graph",), wording="clause")


_PRINT_HELPER = '''def {helper}(*args, **kwargs):
    """`print`; torch.compile makes this call after the compiled graph."""
    print(*args, **kwargs)
'''

_WARN_HELPER = '''def {helper}(message):
    """`warnings.warn`; torch.compile makes this call after the compiled graph."""
    warnings.warn(message, stacklevel=2)
'''


def _defines(ctx: FixContext, name: str) -> bool:
    return name in ctx.top_level_functions


def _inside_deferral_helper(ctx: FixContext, call: cst.Call) -> bool:
    """The call is the body of a helper this module registers as a reorderable logging function."""
    for ancestor in ctx.ancestors(call):
        if isinstance(ancestor, cst.FunctionDef):
            registration = REGISTRATION.format(name=ancestor.name.value)
            return registration in ctx.source
    return False
