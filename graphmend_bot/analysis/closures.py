"""What a nested function reads of the function that defines it: its free names, from source."""

from __future__ import annotations

import ast
from collections.abc import Callable

from graphmend_bot.analysis.local_nodes import every_node


def free_names(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """Names the body reads and neither its parameters nor its own assignments bind (globals and
    builtins too: the caller keeps those of its own locals)."""
    arguments = node.args
    bound = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    bound.update(a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None)
    read: set[str] = set()
    body = node.body if isinstance(node.body, list) else [node.body]
    for statement in body:
        for inner in every_node(statement):  # ast.walk's nodes less contexts and operators, faster
            if isinstance(inner, ast.Name):
                (read if isinstance(inner.ctx, ast.Load) else bound).add(inner.id)
    return read - bound


def closure_builds(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    enclosing: tuple[ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, ...],
    resolve: Callable[[ast.expr], str | None],
) -> dict[str, str]:
    """The free names of a nested function an enclosing function binds once, by a call outside
    the tree (`lock = threading.Lock()` around captum's `forward_hook`, which enters `with lock:`):
    name -> the callee's qualified name, the innermost function's binding first. What built the
    object is then judged as a global's builder is (held_contexts.py)."""
    free = free_names(node)
    found: dict[str, str] = {}
    for outer in enclosing:
        if isinstance(outer, ast.Lambda):
            continue
        assigned: dict[str, list[ast.expr]] = {}
        for inner in ast.walk(outer):
            if isinstance(inner, ast.Assign) and len(inner.targets) == 1 and isinstance(inner.targets[0], ast.Name):
                assigned.setdefault(inner.targets[0].id, []).append(inner.value)
        for name in free - found.keys():
            values = assigned.get(name, [])
            if len(values) == 1 and isinstance(values[0], ast.Call) and (built := resolve(values[0].func)):
                found[name] = built
    return found
