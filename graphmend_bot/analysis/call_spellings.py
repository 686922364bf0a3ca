"""Calls spelled through indirection, read as the plain call they make, so every rule that knows
the plain spelling sees them (benchmarks/fuzz_grammar.SPELL_CONSTRUCTS; measured on torch 2.13,
tests/test_call_spellings.py: Dynamo breaks on each as on the plain call, on the same line):

- `getattr(obj, "name")(...)` is `obj.name(...)` (a constant name);
- `torch.Tensor.name(t, ...)` (an unbound method) is `t.name(...)`;
- `t.__bool__()` / `__int__()` / `__float__()` / `__index__()` are `bool(t)` / `int(t)` / `float(t)`
  / `int(t)`, and `operator.index(t)` / `operator.truth(t)` are `int(t)` / `bool(t)`;
- `operator.gt(a, b)` (and the other comparisons) is `a > b`;
- `builtins.sorted(...)` is `sorted(...)` where the name `sorted` is the builtin;
- a local bound once to a torch function or a builtin (`nz = torch.nonzero`, `s2 = sorted`), called,
  is that function called;
- a local holding `functools.partial(F, *a, **k)` of such a function (or of `torch.Tensor.M`), called
  as `f(*b, **kw)`, is `F(*a, *b, **k, **kw)`; one holding a bound method of torch.Tensor's API
  (`get = t.item`), called, is that method called on its receiver (held_callables.py says which
  value a local holds at the call);
- `map(F, xs)` consumed where it is built, by a builtin that iterates it (`list(map(float, t))`), is
  the generator `(F(v) for v in xs)` it makes: Dynamo breaks on `F(v)` there, at the consuming call
  (a `map` held in a local and consumed later is left alone: it breaks where it is consumed).

The plain call is built once per call node, at the call's position, and evaluated in its place.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Container, Mapping
from typing import TypeVar

from graphmend_bot.analysis import checks as C
from graphmend_bot.analysis.function_aliases import FunctionAliases
from graphmend_bot.vocabulary.conversion_spellings import spelt_as
from graphmend_bot.vocabulary.known_names import TENSOR_API

_E = TypeVar("_E", bound=ast.expr)
_CONVERSIONS = {"__bool__": "bool", "__int__": "int", "__float__": "float", "__index__": "int"}
# Builtins that consume an iterable they are given (checks.ITERATING_BUILTINS), and the name the
# respelled `map` binds its elements to (no identifier of a module can be it: it is no identifier).
_CONSUMERS = frozenset({"list", "tuple", "sorted", "set", "frozenset", "sum", "max", "min", "any", "all"})
_ELEMENT = "map element"
_OPERATOR_CONVERSIONS = {"operator.index": "int", "operator.truth": "bool"}
_COMPARISONS: dict[str, type[ast.cmpop]] = {
    "operator.gt": ast.Gt, "operator.ge": ast.GtE, "operator.lt": ast.Lt, "operator.le": ast.LtE,
    "operator.eq": ast.Eq, "operator.ne": ast.NotEq,
}

# Every spelling `respelled` reads through resolves under one of these heads, or is a `getattr(...)`
# call, a conversion dunder, or a local alias: `may_respell` says so before any node is built.
_RESPELLED_HEADS = ("torch.Tensor.", "operator.", "builtins.")


def may_respell(call: ast.Call, resolved: str | None, aliases: Mapping[str, tuple[str, ...]]) -> bool:
    """False for a call `respelled` leaves alone whatever else holds (most calls: `self.proj(x)`,
    `torch.cat(...)`), read from the callee and what it resolves to (`resolved`), so that the memo
    holds only calls that may be respelled."""
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr in _CONVERSIONS or (resolved is not None and resolved.startswith(_RESPELLED_HEADS))
    if isinstance(func, ast.Name):  # an alias, a held partial or bound method, a consumed `map(...)`
        return (func.id in aliases or (resolved is not None and resolved.startswith(_RESPELLED_HEADS))
                or (isinstance(aliases, FunctionAliases) and aliases.holds_callable(func.id))
                or (func.id in _CONSUMERS and len(call.args) == 1 and isinstance(call.args[0], ast.Call)))
    return isinstance(func, ast.Call)


def respelled(
    call: ast.Call,
    resolve: Callable[[ast.expr], str | None],
    builtin_of: Callable[[ast.expr], str | None],
    aliases: Mapping[str, tuple[str, ...]],
    local_names: Container[str] = frozenset(),
) -> ast.expr | None:
    """The plain expression `call` spells, or None when it is spelled plainly already. A callee whose
    head is a local of the function (`operator = Ops()`, then `operator.gt(a, b)`) is not the module
    the import names: not respelled. A function's aliases also say what value a local holds at a row
    (held_callables.py)."""
    func = call.func
    if any(isinstance(arg, ast.Starred) for arg in call.args):
        return None
    if (isinstance(func, ast.Name) and isinstance(aliases, FunctionAliases)
            and (value := aliases.held_value(func.id, call.lineno)) is not None
            and (plain := _held_call(call, value, resolve, builtin_of)) is not None):
        return respelled(plain, resolve, builtin_of, {}) or plain
    if (isinstance(func, ast.Name) and len(call.args) == 1 and isinstance(mapped := call.args[0], ast.Call)
            and func.id in _CONSUMERS and (generator := _mapped(mapped, builtin_of)) is not None
            and builtin_of(func) == func.id):
        return _at(ast.Call(func, [generator], call.keywords), call)
    if isinstance(func, ast.Call):  # `getattr(obj, "name")(...)`
        if (len(func.args) == 2 and not func.keywords and isinstance(name := func.args[1], ast.Constant)
                and isinstance(name.value, str) and name.value.isidentifier() and builtin_of(func.func) == "getattr"):
            return _at(ast.Call(_at(ast.Attribute(func.args[0], name.value, ast.Load()), func), call.args,
                                call.keywords), call)
        return None
    if isinstance(func, ast.Attribute) and func.attr in _CONVERSIONS and not call.args and not call.keywords:
        builtin = _builtin_call(_CONVERSIONS[func.attr], func.value, call, builtin_of)
        return spelt_as(builtin, func.attr) if isinstance(builtin, ast.Call) else None
    if isinstance(func, ast.Name) and func.id in aliases:  # `nz = torch.nonzero` ... `nz(y)`
        refs = aliases[func.id]
        target = _dotted(refs[0].partition(":")[2], func) if len(refs) == 1 and refs[0].startswith(("name:", "dotted:")) else None
        if target is None or (isinstance(target, ast.Name) and target.id == func.id):
            return None
        if not ((resolve(target) or "").startswith("torch.") or builtin_of(target) is not None):
            return None  # a function of the tree: the scope solver follows the alias already
        return respelled(plain := _at(ast.Call(target, call.args, call.keywords), call), resolve, builtin_of, {}) or plain
    resolved = None if _head(func) in local_names else resolve(func)
    if resolved is None or call.keywords:
        return None
    if (resolved.startswith("torch.Tensor.") and call.args and resolved.count(".") == 2
            and resolved not in C.CALLS and resolved[6:] not in C.TORCH_FUNCTIONS):  # `torch.Tensor.item(t)`
        # (a rule that names the unbound spelling, GM641's `torch.Tensor.as_subclass`, reads it itself)
        method = _at(ast.Attribute(call.args[0], resolved.rpartition(".")[2], ast.Load()), func)
        return _at(ast.Call(method, call.args[1:], []), call)
    if resolved in _OPERATOR_CONVERSIONS and len(call.args) == 1:
        builtin = _builtin_call(_OPERATOR_CONVERSIONS[resolved], call.args[0], call, builtin_of)
        return spelt_as(builtin, resolved) if isinstance(builtin, ast.Call) else None
    if (op := _COMPARISONS.get(resolved)) is not None and len(call.args) == 2:
        return _at(ast.Compare(call.args[0], [op()], [call.args[1]]), call)
    if resolved == "builtins.sorted" and isinstance(func, ast.Attribute):
        name = _at(ast.Name("sorted", ast.Load()), func)
        return _at(ast.Call(name, call.args, call.keywords), call) if builtin_of(name) == "sorted" else None
    return None


def _head(func: ast.expr) -> str | None:
    while isinstance(func, ast.Attribute):
        func = func.value
    return func.id if isinstance(func, ast.Name) else None


def _mapped(call: ast.Call, builtin_of: Callable[[ast.expr], str | None]) -> ast.GeneratorExp | None:
    """`(F(v) for v in xs)` for `map(F, xs)` (one iterable, no lambda: a lambda called in place is
    not analysed)."""
    if (len(call.args) != 2 or call.keywords or isinstance(call.args[0], (ast.Lambda, ast.Starred))
            or isinstance(call.args[1], ast.Starred) or builtin_of(call.func) != "map"):
        return None
    element = _at(ast.Name(_ELEMENT, ast.Store()), call)
    applied = _at(ast.Call(call.args[0], [_at(ast.Name(_ELEMENT, ast.Load()), call)], []), call)
    return _at(ast.GeneratorExp(applied, [ast.comprehension(element, call.args[1], [], 0)]), call)


def _held_call(call: ast.Call, value: ast.expr, resolve: Callable[[ast.expr], str | None],
               builtin_of: Callable[[ast.expr], str | None]) -> ast.Call | None:
    """The call of what `value` holds with `call`'s arguments: a partial's function with its
    arguments first (a torch function, `torch.Tensor.M` or a builtin; a partial of a function of
    the tree is left to the scope solver), or a torch.Tensor method bound to its receiver (a
    receiver naming a module or class, `torch.nonzero`, is a function, which `aliases` handle)."""
    if isinstance(value, ast.Call) and value.args and resolve(value.func) == "functools.partial":
        target = value.args[0]
        if any(isinstance(arg, ast.Starred) for arg in value.args) or any(kw.arg is None for kw in value.keywords):
            return None
        if not ((resolve(target) or "").startswith("torch.") or builtin_of(target) is not None):
            return None
        return _at(ast.Call(target, [*value.args[1:], *call.args], [*value.keywords, *call.keywords]), call)
    if isinstance(value, ast.Attribute) and value.attr in TENSOR_API and resolve(value) is None:
        return _at(ast.Call(_at(ast.Attribute(value.value, value.attr, ast.Load()), call.func), call.args,
                            call.keywords), call)
    return None


def _builtin_call(name: str, value: ast.expr, call: ast.Call, builtin_of: Callable[[ast.expr], str | None]) -> ast.expr | None:
    callee = _at(ast.Name(name, ast.Load()), call.func)
    if builtin_of(callee) != name:
        return None  # the module rebinds the name: the synthetic call would not be the builtin
    return _at(ast.Call(callee, [value], []), call)


def _dotted(name: str, where: ast.expr) -> ast.expr | None:
    parts = name.split(".")
    if not all(part.isidentifier() for part in parts):
        return None
    node: ast.expr = _at(ast.Name(parts[0], ast.Load()), where)
    for part in parts[1:]:
        node = _at(ast.Attribute(node, part, ast.Load()), where)
    return node


def _at(node: _E, where: ast.expr) -> _E:
    return ast.copy_location(node, where)
