"""The callees a function hands one of its parameters on to, as a value: posteriors'
`flexi_tree_map(f, tree)` runs `tm(f, tree)` with `tm = tree_map_ if inplace else tree_map`. A
closure passed to such a function runs where the callee it is forwarded to calls it back
(measured on torch 2.13: Dynamo traces into it, tests/test_scope_callbacks.py).

Asked only for in-tree callees passed a closure or bound method that call no parameter
themselves (scope.Program._calls_back), so the module is parsed lazily, once (DroppedResults).
"""

from __future__ import annotations

import ast

from graphmend_bot.analysis.dropped_results import definition
from graphmend_bot.vocabulary.dotted_names import dotted_name


def forwarded_callees(tree: ast.Module, qualname: str) -> list[tuple[str, str]]:
    """(spelling, qualified name) of each callee `qualname` passes a parameter of its own to:
    the name as written (`tree_map`, or each name a local alias may hold), and the same through
    the module's imports (`optree.tree_map`)."""
    function = definition(tree, qualname)
    if function is None:
        return []
    params = {arg.arg for arg in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)}
    aliases: dict[str, list[str]] = {}
    callees: list[str] = []
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            aliases.setdefault(node.targets[0].id, []).extend(_held_names(node.value))
        elif isinstance(node, ast.Call) and any(
            isinstance(value, ast.Name) and value.id in params
            for value in (*node.args, *(keyword.value for keyword in node.keywords))
        ):
            spelled = dotted_name(node.func)
            if spelled is not None:
                callees.append(spelled)
    imported = _imports(tree)
    found: list[tuple[str, str]] = []
    for callee in callees:
        for spelled in aliases.get(callee, [callee]):
            head, dot, rest = spelled.partition(".")
            found.append((spelled, f"{imported[head]}{dot}{rest}" if head in imported else spelled))
    return found


def _held_names(value: ast.expr) -> list[str]:
    """The functions a local may hold: `tree_map`, `a if c else b`."""
    if isinstance(value, ast.IfExp):
        return [*_held_names(value.body), *_held_names(value.orelse)]
    spelled = dotted_name(value)
    return [spelled] if spelled is not None else []


def _imports(tree: ast.Module) -> dict[str, str]:
    """Local name -> qualified name of the module's top-level imports."""
    names: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.update({alias.asname or alias.name: f"{node.module}.{alias.name}" for alias in node.names})
        elif isinstance(node, ast.Import):
            names.update({alias.asname or alias.name.partition(".")[0]:
                          alias.name if alias.asname else alias.name.partition(".")[0] for alias in node.names})
    return names
