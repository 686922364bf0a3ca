"""What a sort's key picks out of the elements it sorts, read from the source alone.

Shared by the sort analysis (analysis/function_sorts.py), which gives the key its kind, and GM618,
which reports a key that gives a tensor.
"""

from __future__ import annotations

import ast


def picks_dict_value(call: ast.Call, key: ast.expr) -> bool:
    """`sorted(d.items(), key=lambda kv: kv[1])` (or `-kv[1]`, `itemgetter(1)`): the key is each
    pair's value, which a dict of tensors holds (its keys are names)."""
    items = call.args[0] if call.args else None
    if not (
        isinstance(items, ast.Call)
        and isinstance(items.func, ast.Attribute)
        and items.func.attr == "items"
        and not items.args
    ):
        return False
    if isinstance(key, ast.Call):  # `operator.itemgetter(1)`
        return len(key.args) == 1 and isinstance(key.args[0], ast.Constant) and key.args[0].value == 1
    if not isinstance(key, ast.Lambda):
        return False
    body = key.body.operand if isinstance(key.body, ast.UnaryOp) else key.body
    return (
        isinstance(body, ast.Subscript)
        and isinstance(body.value, ast.Name)
        and body.value.id == key.args.args[0].arg
        and isinstance(body.slice, ast.Constant)
        and body.slice.value == 1
    )
