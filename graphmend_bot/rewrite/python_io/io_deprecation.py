"""Deprecation notices in traced code: deferred past the graph through Dynamo, never hidden.

A deprecation notice (`warnings.warn(msg, FutureWarning)`, `logger.warning_once("... is
deprecated")`) is a signal compiled callers need as much as eager ones, so it gets no
`is_compiling()` guard. Instead the call goes through a module-level helper registered in
`torch._dynamo.config.reorderable_logging_functions`: Dynamo does not trace such a function, it
records the call with its arguments and makes it after the compiled graph, on every call (cached
ones too). Measured on torch 2.13 (GM403's rule docs): no break, whether the message is a
constant, a module constant, an f-string of Python values or tensors, or a `.format(...)`. The
limit, measured too: only the compiled frame's own calls are made; from a function Dynamo inlines
into it (a submodule's forward, a decorated forward) torch 2.13 drops the notice under compile, as
a guard would. Eager runs are unchanged either way, so the deferral is never worse than the guard,
and it is the form that keeps the notice wherever Dynamo can.

The helper takes only what Dynamo can carry (the message, the stacklevel, a logger's arguments);
the category, a class, stays in its body, one helper per category. The helpers add one to the
stacklevel for their own frame, so an eager warning or log record names the same file and line as
before the rewrite.

Where the deferral cannot be written (a logger that is not a module-level name, a category that
is not a module-level or builtin name, arguments the helper does not take), the finding keeps its
advice: `defer_notice` returns None.
"""

from __future__ import annotations

import builtins
import re
from typing import TYPE_CHECKING

import libcst as cst

from graphmend_bot.findings import Edit, Fix, Location
from graphmend_bot.rewrite.context import FixContext
from graphmend_bot.rewrite.purity import dotted

if TYPE_CHECKING:
    from graphmend_bot.rewrite.python_io.io_purpose import IoCall

REGISTRATION = "torch._dynamo.config.reorderable_logging_functions.add({name})"
DEFERRAL_ASSUMPTION = (
    "under torch.compile the notice is emitted after the graph (a warnings-as-errors filter raises there) "
    "only when its function is the compiled frame; torch 2.13 drops it from a frame inlined into another"
)
WARN_PARAMETERS = ("message", "category", "stacklevel")

WARNING_HELPER = '''def {helper}(message, stacklevel=1):
    """`warnings.warn(message, {category})`, made after the compiled graph under torch.compile."""
    warnings.warn(message, {category}, stacklevel=stacklevel + 1)  # + 1: this frame
'''

LOG_HELPER = '''def {helper}(method, *args, **kwargs):
    """Call `{logger}.<method>`; torch.compile makes this call after the compiled graph."""
    if method in ("debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log"):
        kwargs["stacklevel"] = kwargs.get("stacklevel", 1) + 1  # the record names our caller's line
    getattr({logger}, method)(*args, **kwargs)
'''


def log_helper_name(logger: str) -> str:
    return "_log_after_graph" if logger == "logger" else f"_{logger.strip('_')}_after_graph"


def defer_notice(ctx: FixContext, construct: IoCall, call: cst.Call) -> Fix | None:
    """Route a deprecation notice through its deferral helper, or None where it cannot be written."""
    if construct == "warning":
        return defer_warning(ctx, call, (DEFERRAL_ASSUMPTION,))
    if construct == "logger":
        return _defer_log(ctx, call)
    return None


def defer_warning(ctx: FixContext, call: cst.Call, assumptions: tuple[str, ...]) -> Fix | None:
    """`warnings.warn(message, Category, stacklevel=n)` -> `_category_after_graph(message, stacklevel=n)`."""
    arguments = _warn_arguments(call)
    if arguments is None or "message" not in arguments:
        return None
    category = arguments.get("category")
    category_code = "UserWarning" if category is None else dotted(category)
    if category_code is None or not _module_level_name(ctx, category_code.split(".")[0]):
        return None  # the helper's body names the category at module level
    helper = f"_{_snake(category_code.rsplit('.', 1)[-1])}_after_graph"
    edits = _imports(ctx, ("torch", "warnings"))
    if helper not in ctx.top_level_functions:
        code = WARNING_HELPER.format(helper=helper, category=category_code)
        edits.append(_insert_helper(ctx, None, helper, code))
    # Only the callee changes and the category goes: the helper's parameters are named and ordered
    # like warnings.warn's (message, stacklevel), so the other arguments stay as written.
    edits.append(ctx.replace_expression(call.func, helper))
    if category is not None:
        edits.append(_drop_argument(ctx, call, category))
    title = (f"Defer `warnings.warn(..., {category_code})` through `{helper}`, registered in "
             "reorderable_logging_functions: eager behaviour unchanged, the notice kept where Dynamo can")
    return Fix.of(title, tuple(edits), assumptions, wording="clause")


def _defer_log(ctx: FixContext, call: cst.Call) -> Fix | None:
    """`logger.warning_once(...)` -> `_log_after_graph("warning_once", ...)`, arguments as written."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)):
        return None  # not a module-level logger name
    logger = func.value.value
    anchor = module_assignment(ctx, logger)
    if anchor is None or not ctx.resolves_to_module(func.value):
        return None  # a local or parameter of that name: the helper would log through the module's
    helper = log_helper_name(logger)
    edits = _imports(ctx, ("torch",))
    if helper not in ctx.top_level_functions:
        edits.append(_insert_helper(ctx, anchor, helper, LOG_HELPER.format(helper=helper, logger=logger)))
    edits.append(ctx.replace_expression(func, helper))
    edits.append(method_argument(ctx, call, func.attr.value))
    title = (f"Defer `{logger}.{func.attr.value}(...)` through `{helper}`, registered in "
             "reorderable_logging_functions: eager behaviour unchanged, the notice kept where Dynamo can")
    return Fix.of(title, tuple(edits), (DEFERRAL_ASSUMPTION,), wording="clause")


def method_argument(ctx: FixContext, call: cst.Call, method: str) -> Edit:
    """Insert the logger method's name as the helper's first argument, laid out like the others."""
    if not call.args:
        end = ctx.span(call)[1]
        at = Location(end.row, end.column - 1)
        return Edit(f'"{method}"', at, at)
    at = ctx.span(call.args[0])[0]
    if at.row > ctx.span(call)[0].row:  # the arguments start on their own line: so does the method
        return Edit(f'"{method}",\n' + " " * (at.column - 1), at, at)
    return Edit(f'"{method}", ', at, at)


def _warn_arguments(call: cst.Call) -> dict[str, cst.BaseExpression] | None:
    """`warnings.warn`'s arguments by parameter name; None for any the helper does not take."""
    found: dict[str, cst.BaseExpression] = {}
    for index, arg in enumerate(call.args):
        if arg.star:
            return None
        if arg.keyword is None:
            if index >= len(WARN_PARAMETERS):
                return None
            name = WARN_PARAMETERS[index]
        else:
            name = arg.keyword.value
        if name not in WARN_PARAMETERS or name in found:
            return None  # source=, skip_file_prefixes=: not carried by the helper
        found[name] = arg.value
    return found


def _drop_argument(ctx: FixContext, call: cst.Call, value: cst.BaseExpression) -> Edit:
    """Delete the argument whose value is `value`, with the comma that joins it to its neighbour."""
    index = next(i for i, arg in enumerate(call.args) if arg.value is value)
    if index == 0:
        start, end = ctx.span(call.args[0])[0], ctx.span(call.args[1])[0]
    else:
        start, end = ctx.span(call.args[index - 1].value)[1], ctx.span(value)[1]
    return Edit("", start, end)


def _module_level_name(ctx: FixContext, name: str) -> bool:
    """A builtin, or a name the module binds (an import, a class, an assignment...)."""
    return hasattr(builtins, name) or ctx.module_bindings(name) > 0


def module_assignment(ctx: FixContext, name: str) -> cst.SimpleStatementLine | None:
    for statement in ctx.module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign) and any(
                    isinstance(t.target, cst.Name) and t.target.value == name for t in small.targets
                ):
                    return statement
    return None


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _imports(ctx: FixContext, modules: tuple[str, ...]) -> list[Edit]:
    edits = []
    for module in modules:
        edit = ctx.ensure_import(f"import {module}")
        if edit is not None:
            edits.append(edit)
    return edits


def _insert_helper(ctx: FixContext, anchor: cst.CSTNode | None, helper: str, code: str) -> Edit:
    """The helper with its registration right below it."""
    return module_insertion(ctx, anchor, code + "\n\n" + REGISTRATION.format(name=helper) + "\n")


def module_insertion(ctx: FixContext, anchor: cst.CSTNode | None, code: str) -> Edit:
    """Insert a module-level block after `anchor` (or after the imports), two blank lines around.

    The block uses `torch` when the module is imported (a decorator, a registration): it goes
    below the module's `import torch` too, where that comes after the anchor (ensure_import adds
    one with the leading imports where the module has none); FixUnavailable where torch is
    imported only under a condition."""
    anchor = anchor or ctx.import_anchor()
    row = ctx.position(anchor).end.line if anchor is not None else 0
    row = max(row, ctx.unconditional_import_row("torch") or 0)
    ctx.require_at_import("torch", row + 1)
    if row and not ctx.line(row).endswith(("\n", "\r")):  # the anchor ends the file
        end = Location(row, len(ctx.line(row)) + 1)
        return Edit("\n\n\n" + code.rstrip("\n"), end, end)
    blank_after = 0
    while ctx.line(row + 1 + blank_after) and not ctx.line(row + 1 + blank_after).strip():
        blank_after += 1
    at = Location(row + 1, 1)
    return Edit("\n\n" + code + "\n" * max(0, 2 - blank_after), at, at)
