"""A call of a local bound to a lambda (`f = lambda t: t.sum().item()` then `f(x)`): its body is
evaluated where it is called, with the arguments' kinds bound to its parameters.

Measured on torch 2.13 (tests/test_local_lambdas.py): Dynamo inlines the lambda and breaks on its
body's line, as for a nested `def` (which the analyzer summarises as a function of its own; a
lambda is none). The body sees the enclosing function's locals as they are at the call.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from graphmend_bot.analysis.local_nodes import local_nodes
from graphmend_bot.vocabulary.kind import NOT_TENSOR, Kind

if TYPE_CHECKING:
    from graphmend_bot.analysis.function_calls import CallResolver
    from graphmend_bot.analysis.function_state import Env

_INLINING: set[int] = set()  # lambdas being evaluated: `f = lambda n: f(n - 1)` stops at once
# Inlinings under one outermost call: `f1 = lambda t: f0(f0(t))`, `f2 = lambda t: f1(f1(t))`, ...
# doubles per level (25 levels took minutes); depth first, so the first path reaches the bottom.
_BUDGET = 64
_spent = [0]


def inlined_call(visitor: CallResolver, call: ast.Call, args: list[Kind], env: Env) -> Kind | None:
    """The kind the lambda a called local holds returns, its body's breaks reported; None when the
    local holds no lambda bound in this function before the call (the usual call handling then)."""
    func = call.func
    if not isinstance(func, ast.Name) or func.id not in visitor._closures:
        return None
    lambdas = [found for found in _bound_lambdas(visitor.node, func.id, call.lineno, visitor.lines)
               if id(found) not in _INLINING]
    if not lambdas or call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    if any(found.args.vararg is not None or found.args.kwarg is not None or found.args.kwonlyargs
           for found in lambdas):
        return None
    if not _INLINING:
        _spent[0] = 0
    elif _spent[0] >= _BUDGET:
        return None
    _spent[0] += 1
    return Kind.union([_inline(visitor, found, args, env) for found in lambdas])


def _inline(visitor: CallResolver, lambda_: ast.Lambda, args: list[Kind], env: Env) -> Kind:
    params = lambda_.args
    inner = dict(env)
    for index, param in enumerate([*params.posonlyargs, *params.args]):
        inner[param.arg] = args[index] if index < len(args) else NOT_TENSOR
    _INLINING.add(id(lambda_))
    try:
        return visitor.expr(lambda_.body, inner)
    finally:
        _INLINING.discard(id(lambda_))


Bindings = dict[str, list[tuple[int, ast.expr | None]]]
Loops = list[tuple[int, int]]  # (first row, last row) of each loop of the function's own body
# The bindings of the function last asked (one walk per function, not per call: calls of nested
# defs ask too); the function is kept so that its id is not reused while it is cached.
_CACHED: list[tuple[ast.AST, Bindings, Loops]] = []


def _bound_lambdas(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str, row: int,
                   lines: list[str]) -> list[ast.Lambda]:
    """The lambdas a call of `name` at `row` may run: of the last `name = lambda ...:` of the
    function's own body before `row` (none when a binding to anything else comes after it), and of
    those after `row` in a loop around it (the next iteration calls them: measured, Dynamo breaks
    in a lambda bound after the call in the loop). Walked only when the text holds a lambda."""
    if not _CACHED or _CACHED[0][0] is not function:
        text = lines[function.lineno - 1 : function.end_lineno]
        _CACHED[:] = [(function, *(_bindings(function) if any("lambda" in line for line in text) else ({}, [])))]
    _, bindings, loops = _CACHED[0]
    found: list[ast.Lambda] = []
    last = max((end for start, end in loops if start <= row <= end), default=row)
    for lineno, value in bindings.get(name, ()):
        if lineno < row:
            found = [value] if isinstance(value, ast.Lambda) else []
        elif row < lineno <= last and isinstance(value, ast.Lambda):
            found.append(value)
    return found


def _bindings(function: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[Bindings, Loops]:
    """Per name the function's own body binds: (row, the value of `name = value`, else None), by
    row; and the rows of its loops."""
    bindings: Bindings = {}
    loops: Loops = []
    assigned: set[int] = set()  # the targets of `name = value` (parents come first), met again as stores
    for node in local_nodes(function.body):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            loops.append((node.lineno, node.end_lineno or node.lineno))
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            bindings.setdefault(node.targets[0].id, []).append((node.lineno, node.value))
            assigned.add(id(node.targets[0]))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and id(node) not in assigned:
            bindings.setdefault(node.id, []).append((node.lineno, None))
    for rows in bindings.values():
        rows.sort(key=lambda binding: binding[0])
    return bindings, loops
