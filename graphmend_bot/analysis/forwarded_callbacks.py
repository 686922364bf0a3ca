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

from graphmend_bot.analysis.callee_refs import (
    callee_ref,
    callee_suffix,
    calls_back_by_method,
    known_caller_back,
    passed_closures,
)
from graphmend_bot.vocabulary.dotted_names import dotted_name

if TYPE_CHECKING:
    from graphmend_bot.analysis.function_calls import CallResolver
    from graphmend_bot.analysis.function_state import Env


def passed_callables(visitor: CallResolver, call: ast.Call, resolved: str | None, env: Env) -> None:
    """Record the nested functions and own parameters `call` is handed as values."""
    if visitor._closures:
        visitor.references.update(passed_closures(call, visitor._closures, resolved))
    if not (call.args or call.keywords) or not _may_call_back(visitor, call.func, resolved, env):
        return  # every call asks: the callee's shape first, the arguments only then
    if _passes_parameter(call, visitor.summary.params, visitor.self_name):
        forwards = _forwards(visitor, call, resolved, env)
        if "" in forwards and not _passes_callable(call, visitor.summary.params, visitor.self_name):
            forwards = [ref for ref in forwards if ref]  # `tree_map(double, x)` hands on the tree, not a callable
        if forwards and not set(forwards) <= set(visitor.summary.forwards):
            visitor.summary.forwards = tuple(sorted({*visitor.summary.forwards, *forwards}))


def _may_call_back(visitor: CallResolver, func: ast.expr, resolved: str | None, env: Env) -> bool:
    """A function of the module or the package, a local that may hold one, or a caller back. Not a
    method's call (`self.proj(x)`, `layer.step(x)`: most of the calls handed a parameter) unless it
    is a caller back (`y.register_hook(fn)`), nor a call out of the tree (`torch.cat(xs)`)."""
    if type(func) is ast.Attribute:
        head = func.value
        while type(head) is ast.Attribute:
            head = head.value
        if type(head) is not ast.Name or head.id in env or head.id in ("self", "cls", visitor.self_name):
            return calls_back_by_method(func.attr)
    elif type(func) is not ast.Name:
        return False
    return resolved is None or known_caller_back(resolved) or visitor.guard_helpers is None \
        or resolved.partition(".")[0] == visitor.guard_helpers.package


def _passes_parameter(call: ast.Call, params: tuple[str, ...], self_name: str | None) -> bool:
    """A parameter (not the instance) among the call's arguments, positional or keyword."""
    for value in call.args:
        if type(value) is ast.Name and value.id in params and value.id != self_name:
            return True
    return any(type(keyword.value) is ast.Name and keyword.value.id in params and keyword.value.id != self_name
               for keyword in call.keywords)


# Where a caller back takes what it calls: first (`tree_map(f, tree)`, `checkpoint(f, x)`,
# `apply_chunking_to_forward(f, ...)`, `map(f, xs)`), second after the type of `tree_map_only(T, f,
# tree)`, or by one of these keywords (`sorted(xs, key=f)`).
_CALLABLE_KEYWORDS = frozenset({"f", "fn", "func", "function", "key", "forward_fn", "hook", "callback"})


def _passes_callable(call: ast.Call, params: tuple[str, ...], self_name: str | None) -> bool:
    """A parameter (not the instance) where a caller back takes its callable: a parameter handed
    on as the tree (`tree_map(double, x)` in `run(fn, x)`) does not make `run` call `fn` back
    (measured on torch 2.13: a print in `fn` then breaks nowhere; review27)."""
    name = dotted_name(call.func) or ""
    first = 1 if name.endswith(("tree_map_only", "tree_map_only_")) else 0
    values = [*call.args[first:first + 1], *(keyword.value for keyword in call.keywords if keyword.arg in _CALLABLE_KEYWORDS)]
    return any(type(value) is ast.Name and value.id in params and value.id != self_name for value in values)


def _forwards(visitor: CallResolver, call: ast.Call, resolved: str | None, env: Env) -> list[str]:
    """"" when the callee calls what it is given (a pytree map), else its callee ref (a function of
    the module or the package), which calls it back when the scope finds so (Program._calls_back);
    through a local, each function it may hold (posteriors' `tm = tree_map_inplacify_ if inplace
    else tree_map`)."""
    func = call.func
    if type(func) is ast.Name and func.id in env:  # a local: what it may hold
        return [ref for named in visitor._function_aliases.called_choices(func.id)
                if (ref := _forward_to(named, visitor)) is not None]
    return [suffix.lstrip() for suffix in callee_suffix(call, resolved)]


def _forward_to(named: ast.expr, visitor: CallResolver) -> str | None:
    if known_caller_back(visitor.resolve(named) or dotted_name(named)):
        return ""
    return callee_ref(named)
