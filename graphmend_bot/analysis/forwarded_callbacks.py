"""Callables a call is handed that it may call back: a nested function of the caller (the
references "closure:NAME[ CALLEE]", callee_refs.passed_closures) and a parameter of the function
itself (FunctionSummary.forwards). posteriors' `flexi_tree_map(f, tree)` runs `tm(f, tree)` with
`tm = tree_map_ if inplace else tree_map`: a closure passed to it runs where the pytree map calls
it, and Dynamo traces it there (measured on torch 2.13, tests/test_scope_callbacks.py).

The forwards are a summary field, made in the same walk as the rest of the summary, so the scope
solver reads no module text for them (an edit of the module then re-solves only when they change:
tests/test_incremental_solve.py).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from graphmend_bot.analysis.callee_refs import callee_ref, callee_suffix, known_caller_back, passed_closures
from graphmend_bot.analysis.local_nodes import local_statements
from graphmend_bot.vocabulary.dotted_names import dotted_name

if TYPE_CHECKING:
    from graphmend_bot.analysis.function_calls import CallResolver


def passed_callables(visitor: CallResolver, call: ast.Call, resolved: str | None) -> None:
    """Record the nested functions and own parameters `call` is handed as values."""
    if visitor._closures:
        visitor.references.update(passed_closures(call, visitor._closures, resolved))
    if _passes_parameter(call, visitor.summary.params, visitor.self_name):
        forwards = _forwards(visitor, call, resolved)
        if forwards and not set(forwards) <= set(visitor.summary.forwards):
            visitor.summary.forwards = tuple(sorted({*visitor.summary.forwards, *forwards}))


def _passes_parameter(call: ast.Call, params: tuple[str, ...], self_name: str | None) -> bool:
    """A parameter (not the instance) among the call's arguments, positional or keyword."""
    for value in call.args:
        if type(value) is ast.Name and value.id in params and value.id != self_name:
            return True
    return any(type(keyword.value) is ast.Name and keyword.value.id in params and keyword.value.id != self_name
               for keyword in call.keywords)


def _forwards(visitor: CallResolver, call: ast.Call, resolved: str | None) -> list[str]:
    """"" when the callee calls what it is given (a pytree map), else its callee ref, which calls
    it back when the scope finds so (Program._calls_back); through a local, each function it may
    hold (posteriors' `tm = tree_map_inplacify_ if inplace else tree_map`: a local called is a
    callable, so a choice of bare names is one of functions here, unlike in function_aliases.py)."""
    func = call.func
    if type(func) is ast.Name and resolved is None and (held := _held_functions(visitor.node.body, func.id)):
        return [ref for named in held if (ref := _forward_to(named, visitor)) is not None]
    return [suffix.lstrip() for suffix in callee_suffix(call, resolved)]


def _held_functions(body: list[ast.stmt], name: str) -> list[ast.expr]:
    """The names or dotted attributes every assignment of the local `name` binds (an arm of a
    conditional expression each); none when one binds anything else."""
    held: list[ast.expr] = []
    for statement in local_statements(body):
        if isinstance(statement, ast.Assign) and any(type(t) is ast.Name and t.id == name for t in statement.targets):
            chosen = _chosen(statement.value)
            if not chosen:
                return []
            held += chosen
    return held


def _chosen(value: ast.expr) -> list[ast.expr]:
    if isinstance(value, ast.IfExp):
        body, orelse = _chosen(value.body), _chosen(value.orelse)
        return [*body, *orelse] if body and orelse else []
    return [value] if dotted_name(value) is not None else []


def _forward_to(named: ast.expr, visitor: CallResolver) -> str | None:
    if known_caller_back(visitor.resolve(named) or dotted_name(named)):
        return ""
    return callee_ref(named)
