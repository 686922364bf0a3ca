"""Names in the ast: the one place a dotted attribute chain is read."""

from __future__ import annotations

import ast


def dotted_name(node: ast.expr) -> str | None:
    """`a.b.c` for a chain of attributes on a name, else None."""
    if isinstance(node, ast.Name):  # most calls: no list to build and join (a summary makes ~900 per file)
        return node.id
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None
