"""What a nested function reads of the function that defines it: its free names, from source."""

from __future__ import annotations

import ast

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
