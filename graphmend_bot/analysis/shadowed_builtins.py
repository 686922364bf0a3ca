"""Builtin names a module or function binds: there `NAME(...)` calls that binding, not the builtin.

Python looks a bare name up in the function's locals, then the enclosing functions', then the
module's globals, and only then in `builtins`. A module's own `def print(*args)`, a local
`pow = torch.pow` or a parameter named `input` is an object Dynamo traces like any other
(measured: tests/fixtures/rules/shadowed_builtins.py compiles with fullgraph=True), so the
builtins' rules (GM401 print, GM654 pow, GM302 int, ...) must not judge its calls. Only the
statements are walked (a binding by walrus or comprehension target is left out: expressions
cost a walk of every node), and only names of builtins are kept.

`builtins.NAME(...)` (and `from builtins import NAME`) is the builtin whatever the module binds.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterable

from graphmend_bot.analysis.local_nodes import fields_present

BUILTIN_NAMES = frozenset(dir(builtins))
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_block_fields = fields_present(("body", "orelse", "finalbody", "handlers", "cases"))


def builtin_called(func: ast.expr, resolved: str | None, shadowed: Iterable[str]) -> str | None:
    """The builtin a call of `func` runs: a bare name no binding in scope hides (`resolved` is
    None: no import binds it), or `builtins.NAME`; None for any other callee."""
    if isinstance(func, ast.Name) and (resolved is None or resolved == func.id):
        return None if func.id in shadowed else func.id
    if resolved is not None and resolved.startswith("builtins.") and resolved.count(".") == 1:
        return resolved[len("builtins.") :]
    return None


def module_bindings(
    tree: ast.Module, functions: Iterable[ast.FunctionDef | ast.AsyncFunctionDef], source: str
) -> frozenset[str]:
    """The builtin names the module's statements bind (any block but function and class bodies,
    and the body of `if __name__ == "__main__":`, which never runs when the module is imported),
    and those a function declares `global` and binds."""
    found = _bound(_run_on_import(tree.body))
    if "global" in source:
        for function in functions:
            declared = _declared(function.body, ast.Global)
            if declared:
                found |= declared & _bound(function.body)
    return frozenset(found & BUILTIN_NAMES)


def function_bindings(node: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """The builtin names local to `node`: its parameters and what its body binds (not those it
    declares `global`: the module's bindings say whether those are rebound; nor a parameter whose
    default is the same name, `print=print`: it holds what the name held where `node` is defined)."""
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    found = {
        arg.arg
        for arg, default in zip([*positional, *args.kwonlyargs], [*defaults, *args.kw_defaults], strict=True)
        if not (isinstance(default, ast.Name) and default.id == arg.arg)
    }
    found |= {arg.arg for arg in (args.vararg, args.kwarg) if arg}
    found &= BUILTIN_NAMES
    bound = _bound(node.body) & BUILTIN_NAMES
    if bound:
        found |= bound - _declared(node.body, ast.Global)
    return frozenset(found)


def _run_on_import(body: list[ast.stmt]) -> list[ast.stmt]:
    """The module's statements without the body of `if __name__ == "__main__":` (its `else` stays)."""
    kept: list[ast.stmt] = []
    for statement in body:
        if isinstance(statement, ast.If) and _is_main_test(statement.test):
            kept += statement.orelse
        else:
            kept.append(statement)
    return kept


def _is_main_test(test: ast.expr) -> bool:
    """`__name__ == "__main__"`, either way round."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = {_name_or_text(test.left), _name_or_text(test.comparators[0])}
    return sides == {"name:__name__", "text:__main__"}


def _name_or_text(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return f"name:{node.id}"
    return f"text:{node.value}" if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""


def _bound(body: list[ast.stmt]) -> set[str]:
    """Names the statements of `body` bind, not entering nested functions and classes (their names count)."""
    found: set[str] = set()
    pending: list[ast.AST] = list(body)
    while pending:
        node = pending.pop()
        if isinstance(node, _SCOPES):
            found.add(node.name)
            continue
        if isinstance(node, ast.Assign):
            for target in node.targets:
                _target_names(target, found)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
            _target_names(node.target, found)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    _target_names(item.optional_vars, found)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update(
                (alias.asname or alias.name).partition(".")[0] for alias in node.names if alias.name != "*"
            )
        elif isinstance(node, ast.ExceptHandler) and node.name:
            found.add(node.name)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                _target_names(target, found)
        for field in _block_fields(type(node)):
            block = getattr(node, field, None)
            if isinstance(block, list):
                pending.extend(block)
    return found


def _declared(body: list[ast.stmt], statement: type[ast.Global] | type[ast.Nonlocal]) -> set[str]:
    """Names the `global` (or `nonlocal`) statements of `body` declare, outside nested scopes."""
    found: set[str] = set()
    pending: list[ast.AST] = list(body)
    while pending:
        node = pending.pop()
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, statement):
            found.update(node.names)
        for field in _block_fields(type(node)):
            block = getattr(node, field, None)
            if isinstance(block, list):
                pending.extend(block)
    return found


def _target_names(target: ast.expr, found: set[str]) -> None:
    if isinstance(target, ast.Name):
        found.add(target.id)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            _target_names(element, found)
    elif isinstance(target, ast.Starred):
        _target_names(target.value, found)
