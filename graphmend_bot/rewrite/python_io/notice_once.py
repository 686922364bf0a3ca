"""`logger.warning_once(...)` notices kept under torch.compile by running them while Dynamo traces.

A `*_once` logger method (transformers' `warning_once` / `info_once`, an `lru_cache`d function on
`logging.Logger`) emits each message once per process. The call goes through a module-level helper
decorated with the public `torch.compiler.assume_constant_result`:

    @torch.compiler.assume_constant_result
    def _warning_once(*args):
        logger.warning_once(*args)

Dynamo does not trace such a function: it calls it while tracing and bakes its result (None) into
the graph as a constant, so the break is gone and the message is emitted, once, as in eager runs.
Measured on torch 2.13 (tests/rewrite/test_notice_once.py): no break with `fullgraph=True` for a
constant message, implicitly concatenated literals and f-strings of Python values, also from a
frame Dynamo inlines into another (where the `reorderable_logging_functions` deferral loses the
notice); one record across calls, recompilations (a second shape) and a compile that falls back;
the same record as before (transformers' `warning_once` calls `self.warning` in its own frame, so
the record names that frame with or without the helper). Eager calls are unchanged. The helper's
arguments must be Python values: a tensor would be formatted once while tracing and then baked
(measured), so only arguments proven to be strings or Python numbers are taken
(python_strings.is_python_text). Under compile the record is made while the call is traced, before
the graph runs rather than between its operations; and code that Dynamo traces without running it
(an arm of a hand-written `torch.cond`, which traces both) would log for the arm not taken; the
fixer's own torch.cond rewrite refuses arms that do more than assign names.

Nothing is hidden, so this applies whatever `deprecation-notices` says. It is safe where the
`*_once` contract is proven: the logger comes from transformers' `logging.get_logger`, from a
`get_logger` module in the checked tree that defines that method with `lru_cache`, or the module
itself installs an `lru_cache`d method on `logging.Logger`. Elsewhere the method's name is all there
is, and the fix is unsafe, resting on it emitting each message once per process.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import libcst as cst

from graphmend_bot.analysis.files import read_source
from graphmend_bot.findings import Fix
from graphmend_bot.rewrite.branching import LocalFacts
from graphmend_bot.rewrite.context import FixContext, FixUnavailable
from graphmend_bot.rewrite.purity import dotted
from graphmend_bot.rewrite.python_io import io_deprecation as helpers
from graphmend_bot.rewrite.python_strings import is_python_text

ONCE_METHODS = frozenset({"warning_once", "info_once", "warn_once"})
TRANSFORMERS_LOGGING = frozenset({"transformers.utils.logging", "transformers.logging"})
CACHE_DECORATORS = frozenset({"lru_cache", "cache"})

HELPER = '''@torch.compiler.assume_constant_result
def {helper}(*args):
    """`{logger}.{method}(*args)`; torch.compile runs it while tracing instead of breaking the graph."""
    {logger}.{method}(*args)
'''


def helper_name(logger: str, method: str) -> str:
    return f"_{method}" if logger == "logger" else f"_{logger.strip('_')}_{method}"


def keep_notice(ctx: FixContext, call: cst.Call) -> Fix | None:
    """`logger.warning_once(msg)` -> `_warning_once(msg)`, or None where it does not apply."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)):
        return None
    logger, method = func.value.value, func.attr.value
    if method not in ONCE_METHODS or not call.args:
        return None
    anchor = helpers.module_assignment(ctx, logger)
    if anchor is None or not _python_arguments(ctx, call):
        return None
    if not ctx.resolves_to_module(func.value):
        return None  # a parameter or local of that name: the helper would log through the module's
    helper = helper_name(logger, method)
    code = HELPER.format(helper=helper, logger=logger, method=method)
    edits = []
    bindings = ctx.module_bindings(helper)
    if helper in ctx.top_level_functions:
        if code.rstrip("\n") not in ctx.source or bindings != 1:
            return None  # the name is taken by a function of the project's own, or bound again
    elif bindings:
        return None  # an import, class or assignment of that name: the inserted def would shadow it
    else:
        try:
            edits.append(helpers.module_insertion(ctx, anchor, code))
        except FixUnavailable:
            return None  # the helper would run at import where torch may be unbound: the guard instead
    import_edit = ctx.ensure_import("import torch")
    if import_edit is not None:
        edits.insert(0, import_edit)
    edits.append(ctx.replace_expression(func, helper))  # the arguments stay as written
    title = (f"Call `{logger}.{method}(...)` through `{helper}`, a `torch.compiler.assume_constant_result` "
             "helper: eager behaviour unchanged, emitted once while torch.compile traces the call")
    unproven = _once_contract_unproven(ctx, anchor, logger, method)
    return Fix.of(title, tuple(edits), (unproven,) if unproven else (), wording="unsafe-clause")


def _python_arguments(ctx: FixContext, call: cst.Call) -> bool:
    """Every argument is positional and a proven Python string or number (never a tensor)."""
    function = next((a for a in ctx.ancestors(call) if isinstance(a, cst.FunctionDef)), None)
    facts = LocalFacts.of(ctx, function)
    return all(arg.keyword is None and not arg.star and is_python_text(ctx, arg.value, function, facts)
               for arg in call.args)


def _once_contract_unproven(ctx: FixContext, anchor: cst.SimpleStatementLine, logger: str, method: str) -> str | None:
    """None where `logger.<method>` is proven to emit a message once per process; else the assumption."""
    assumption = (f"assumes `{logger}.{method}` emits each message once per process (under torch.compile it runs "
                  "while Dynamo traces the call, not on each compiled call)")
    if _module_installs_cached(ctx.source, method):
        return None
    assignment = next((s.value for s in anchor.body if isinstance(s, cst.Assign)), None)
    factory = dotted(assignment.func) if isinstance(assignment, cst.Call) else None
    if factory is None or factory.rsplit(".", 1)[-1] != "get_logger":
        return assumption
    origin = _import_origin(ctx.module, factory.split(".")[0])
    if origin is None:
        return assumption
    module, level = origin
    if level == 0 and module in TRANSFORMERS_LOGGING:
        return None
    source = _tree_module_source(ctx.path, module, level) if level else None
    return None if source is not None and _defines_cached(source, method) else assumption


def _import_origin(module: cst.Module, name: str) -> tuple[str, int] | None:
    """The module a top-level `from X import name` binds `name` from, as (dotted path, relative level)."""
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, cst.ImportFrom) or isinstance(small.names, cst.ImportStar):
                continue
            for alias in small.names:
                bound = alias.evaluated_alias or alias.evaluated_name
                if bound == name:
                    base = (dotted(small.module) if small.module is not None else None) or ""
                    # `from ..utils import logging` names the module `utils.logging`;
                    # `from ..utils.logging import get_logger` names `utils.logging` itself.
                    imported = alias.evaluated_name
                    path = f"{base}.{imported}" if imported != "get_logger" else base
                    return path.strip("."), len(small.relative)
    return None


def _tree_module_source(path: str, module: str, level: int) -> str | None:
    """The source of relative import target `module` (level dots) in the checked tree, if there."""
    base = Path(path).resolve().parent
    for _ in range(level - 1):
        base = base.parent
    target = base.joinpath(*module.split(".")) if module else base
    for candidate in (target.with_suffix(".py"), target / "__init__.py"):
        source = _read(str(candidate))
        if source is not None:
            return source
    return None


@functools.lru_cache(maxsize=64)
def _read(path: str) -> str | None:
    try:
        return read_source(path)
    except ValueError:  # missing, unreadable, not a regular file, undecodable (analysis/files.py)
        return None


@functools.lru_cache(maxsize=64)
def _cached_methods(source: str) -> tuple[frozenset[str], frozenset[str]]:
    """Functions (module level or in a class) decorated with `lru_cache`/`cache`, and the names
    assigned onto `logging.Logger` at module level (`logging.Logger.warning_once = warning_once`)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset(), frozenset()
    cached: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any(_is_cache(d) for d in node.decorator_list):
            cached.add(node.name)
    installed = {
        target.attr
        for statement in tree.body if isinstance(statement, ast.Assign)
        for target in statement.targets
        if isinstance(target, ast.Attribute) and ast.unparse(target.value) in ("logging.Logger", "Logger")
        and isinstance(statement.value, ast.Name) and statement.value.id == target.attr
    }
    return frozenset(cached), frozenset(installed)


def _is_cache(decorator: ast.expr) -> bool:
    callee = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = callee.attr if isinstance(callee, ast.Attribute) else callee.id if isinstance(callee, ast.Name) else ""
    return name in CACHE_DECORATORS


def _defines_cached(source: str, method: str) -> bool:
    """A logging module whose `method` is `lru_cache`d: installed on Logger or on a Logger subclass."""
    cached, _ = _cached_methods(source)
    return method in cached


def _module_installs_cached(source: str, method: str) -> bool:
    if f"Logger.{method}" not in source:
        return False
    cached, installed = _cached_methods(source)
    return method in cached and method in installed
