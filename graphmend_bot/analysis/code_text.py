"""A function's source text with its docstring blanked, for the text searches that gate AST walks.

Several per-function facts are worked out only when the function's text shows a word they need
(`yield`, `with`, a `for` whose target may name a builtin, a torch name). A docstring holds no
code, yet transformers' docstrings say "for the model," and "`torch.FloatTensor` of shape" in
most functions: on its `models/` tree a `for` in prose sent 303 of 402 functions into the
walk of shadowed_builtins for nothing. Blanking the docstring's characters (with spaces, so
every line and column of the code stays where it was) keeps each search a superset of what the
code can hold.
"""

from __future__ import annotations

import ast


def function_text(node: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]) -> str:
    """The source lines of `node` (the module's `lines`), its own docstring blanked."""
    first = node.lineno - 1
    text = lines[first : node.end_lineno or node.lineno]
    doc = _docstring(node)
    if doc is None or doc.end_lineno is None or doc.end_col_offset is None:
        return "\n".join(text)
    text = list(text)
    start, end = doc.lineno - 1 - first, doc.end_lineno - 1 - first
    for row in range(start, min(end, len(text) - 1) + 1):
        raw = text[row].encode()  # ast's columns are UTF-8 byte offsets
        left = doc.col_offset if row == start else 0
        right = doc.end_col_offset if row == end else len(raw)
        text[row] = (raw[:left] + b" " * (right - left) + raw[right:]).decode(errors="replace")
    return "\n".join(text)


def _docstring(node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.Expr | None:
    first = node.body[0] if node.body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return first
    return None
