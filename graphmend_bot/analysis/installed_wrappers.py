"""Python functions of installed packages that call compiled code on every path through them.

pywt's `dwt_coeff_len` is Python (`pywt/_dwt.py`), a thin wrapper that returns
`_dwt_coeff_len(data_len, filter_len, Modes.from_object(mode))`, both from the Cython module
`pywt._extensions`. Dynamo inlines the wrapper and breaks at the compiled call inside it, which it
reports at the caller's line in the checked tree (measured on torch 2.13: "Unsupported method call:
`from_object` of class `_Modes`", GB0156, pytorch_wavelets' `lowlevel.py:153`).

The wrapper's module is read as text (installed_packages.python_definition), never imported, and
only the statements every call runs are looked at: those of the function's body before the first
compound statement that may return or raise (an `if` that returns early may skip the rest). Calls
inside compound statements, lambdas and comprehensions are left out: they may not run. A decorated
or rebound function is not judged: `torch.library.custom_op` around compiled code is the documented
way to make it compile (Dynamo puts the op in the graph whole, measured).
"""

from __future__ import annotations

import ast
import functools

from graphmend_bot.analysis import installed_packages
from graphmend_bot.analysis.files import read_source
from graphmend_bot.vocabulary.compiled_code import CompiledModule

_EXITS = (ast.Return, ast.Raise)
_SIMPLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return)


def compiled_call_inside(dotted: str) -> tuple[str, CompiledModule] | None:
    """When `dotted` names a Python function of an installed package whose every call runs a call
    into compiled code: (the qualified name of that inner call, its compiled module), the first
    Python evaluates; None otherwise. Memoised per read root, as installed_packages' answers are."""
    return _compiled_call_inside(dotted, installed_packages.read_root())


def forget() -> None:
    """Drop the memos (tests that change an installed package's files within one process)."""
    _compiled_call_inside.cache_clear()
    module_function.cache_clear()


@functools.lru_cache(maxsize=4096)
def _compiled_call_inside(dotted: str, root: str) -> tuple[str, CompiledModule] | None:
    found = installed_packages.python_definition(dotted)
    if found is None:
        return None
    path, name, imported = found
    function = module_function(path, name)
    if function is None:
        return None
    try:
        calls = calls_on_every_path(function)
    except RecursionError:  # a long generated expression: not judged, rather than losing the caller's file
        return None
    for call in calls:
        inner = qualified(call.func, imported)
        if inner is not None and (compiled := installed_packages.extension_callee(inner)) is not None:
            return inner, compiled
    return None


@functools.lru_cache(maxsize=256)
def module_function(path: str, name: str) -> ast.FunctionDef | None:
    """The module-level `def name` of the file, when it is what the name holds: the last statement
    binding the name, undecorated (a decorator such as `torch.library.custom_op` or
    `torch.compiler.allow_in_graph` changes what the name holds and what Dynamo does with it)."""
    try:
        tree = ast.parse(read_source(path))
    except (OSError, ValueError, SyntaxError, RecursionError, MemoryError):
        return None
    last = next((node for node in reversed(tree.body) if name in _bound_names(node)), None)
    if isinstance(last, ast.FunctionDef) and not last.decorator_list:
        return last
    return None


def _bound_names(statement: ast.stmt) -> set[str]:
    """The names a module-level statement may bind; under a compound statement every binding
    counts, as it may run."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {statement.name}
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).partition(".")[0] for alias in statement.names}
    return {
        node.id if isinstance(node, ast.Name) else node.name
        for node in ast.walk(statement)
        if (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store))
        or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }


def calls_on_every_path(function: ast.FunctionDef) -> list[ast.Call]:
    """The calls of the statements every call of `function` runs, in the order Python makes them."""
    found: list[ast.Call] = []
    for statement in function.body:
        if not isinstance(statement, _SIMPLE):
            if any(isinstance(node, _EXITS) for node in ast.walk(statement)):
                break
            continue
        found.extend(_evaluation_order(statement))
        if isinstance(statement, ast.Return):
            break
    return found


def _evaluation_order(node: ast.AST) -> list[ast.Call]:
    """The calls in `node`, each after the calls its callee and arguments make; none inside a
    lambda, a comprehension or a conditional expression's branches."""
    if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        return []
    if isinstance(node, ast.IfExp):
        return _evaluation_order(node.test)
    if isinstance(node, ast.BoolOp):
        return _evaluation_order(node.values[0])  # the others may be skipped
    found = [call for child in ast.iter_child_nodes(node) for call in _evaluation_order(child)]
    return [*found, node] if isinstance(node, ast.Call) else found


def qualified(func: ast.expr, imported: dict[str, str]) -> str | None:
    """`name` or `name.attr...` through the module's imports (`Modes.from_object` ->
    `pywt._extensions._pywt.Modes.from_object`); None for a local or a name the module defines."""
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name) or func.id not in imported:
        return None
    return ".".join([imported[func.id], *reversed(parts)])
