"""Names in the ast: the one place a dotted attribute chain is read."""

from __future__ import annotations

import ast


def dotted_name(node: ast.expr) -> str | None:
    """`a.b.c` for a chain of attributes on a name, else None."""
    # The summaries ask about 1.7 million nodes on transformers: a bare name, one attribute on a
    # name (`torch.cat`, `self.norm`) and anything else are answered without building a list.
    if isinstance(node, ast.Name):
        return node.id
    if not isinstance(node, ast.Attribute):
        return None
    value = node.value
    if isinstance(value, ast.Name):
        return f"{value.id}.{node.attr}"
    parts = [node.attr]
    while isinstance(value, ast.Attribute):
        parts.append(value.attr)
        value = value.value
    if isinstance(value, ast.Name):
        parts.append(value.id)
        return ".".join(reversed(parts))
    return None
