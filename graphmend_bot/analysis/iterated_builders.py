"""`iter(x)` stored at module level or in `__init__`, named by what it iterates (GM653).

Measured on torch 2.13 (tests/fixtures/rules/GM653_next_on_held_iterator.py): `next()` on a
held `iter([...])` breaks with GB4347 ("Missing tp_iternext"), and so does one over a set, a
dict (or its `keys()`/`items()`/`values()`), a str, a list comprehension, `list(...)` or
`sorted(...)`; over a tuple or a range Dynamo steps it. The builder is recorded as
`iter(list)` (and so on) so that the held-iterator table can say which of them it reports; an
`iter` of anything else stays `iter`, judged by nothing.
"""

from __future__ import annotations

import ast

_DISPLAYS: dict[type, str] = {
    ast.List: "list",
    ast.ListComp: "list",
    ast.Set: "set",
    ast.SetComp: "set",
    ast.Dict: "dict",
    ast.DictComp: "dict",
}
_BUILT = {"list": "list", "sorted": "list", "set": "set", "frozenset": "set", "dict": "dict"}
_VIEWS = frozenset({"keys", "values", "items"})


def builder_name(call: ast.Call, callee: str) -> str:
    """`callee`, or for `iter(<list/set/dict/str>)` `iter(list)`, `iter(set)`, `iter(dict)`, `iter(str)`."""
    if callee != "iter" or len(call.args) != 1 or call.keywords:
        return callee
    iterated = _iterated(call.args[0])
    return f"iter({iterated})" if iterated is not None else callee


def view_name(call: ast.Call) -> str | None:
    """`dict.values` for `{...}.values()` (a dict display's or `dict(...)`'s view, which has no dotted
    callee): what GM676 judges a held view by; None for any other call."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in _VIEWS and not call.args and not call.keywords:
        return f"dict.{func.attr}" if _iterated(func.value) == "dict" else None
    return None


def _iterated(node: ast.expr) -> str | None:
    if (display := _DISPLAYS.get(type(node))) is not None:
        return display
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return "str"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return _BUILT.get(node.func.id)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _VIEWS:
        return "dict" if _iterated(node.func.value) == "dict" else None  # `{...}.items()`
    return None
