"""Which reads of `self.NAME` and `self.held.NAME` run a property of the module's classes: the
`getter:` call sites the scope solver resolves to the getter (function_objects.py records them)."""

from __future__ import annotations

import ast
from collections.abc import Container


def getter_ref(node: ast.Attribute, properties: Container[str], self_name: str | None,
               env: Container[str]) -> str | None:
    """`getter:self>NAME` for `self.NAME`: on the method's own `self`, or on the `self` a closure
    nested in a method closes over (torchmetrics' `wrapped_func` in `_wrap_compute` reads
    `self.update_called`; scope.Program.self_class finds its class). `getter:attr:HELD>NAME` for
    `self.HELD.NAME` on an object the method's class holds: the solver finds the getter through
    what __init__ built there (a cached_property read so breaks as on `self`, GM612)."""
    if node.attr not in properties:
        return None
    owner = node.value
    if isinstance(owner, ast.Name):
        own = owner.id not in env and owner.id == (self_name or "self")
        return f"getter:self>{node.attr}" if own else None
    if isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name):
        holder = owner.value.id
        if holder == (self_name or "self") and holder not in env:
            return f"getter:attr:{owner.attr}>{node.attr}"
    return None
