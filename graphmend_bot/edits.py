"""Applying edits to source text: the one place where a Fix's (row, column) locations become offsets.

Rows are counted as Python's tokenizer counts them (only \\n, \\r\\n and \\r end a line), as ast and
libcst do; columns are 1-based characters and end locations are exclusive (ruff's convention). The
fix engine (rewrite/), the review's suggestions and its fix preview all apply edits here.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Sequence

from graphmend_bot.findings import Edit, Fix

# (start offset, end offset, replacement)
Span = tuple[int, int, str]

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
_LINE_END = re.compile(r"\r\n|\r|\n")


def split_lines(source: str) -> list[str]:
    """Lines as Python's tokenizer sees them (only \\n, \\r\\n and \\r end a line), with their ends."""
    return _LINE.findall(source)


def line_starts(source: str) -> list[int]:
    """Offset of the first character of each (1-based) row; one extra row for end-of-file edits."""
    starts = [0]
    for line in split_lines(source):
        starts.append(starts[-1] + len(line))
    return starts


def edit_span(edit: Edit, starts: list[int]) -> Span:
    """The edit as offsets into the text whose `line_starts` are `starts`; ValueError past the end."""
    def offset(row: int, column: int) -> int:
        if not 1 <= row <= len(starts):
            raise ValueError(f"edit row {row} is past the end of the file")
        return starts[row - 1] + column - 1

    return offset(edit.location.row, edit.location.column), offset(edit.end_location.row, edit.end_location.column), \
        edit.content


def clash(a: Span, b: Span) -> bool:
    """Whether two fixes' edits conflict: they overlap and are not the same edit (the same `import
    torch` insertion from two fixes is applied once). An insertion conflicts only with another
    insertion at its point or a replacement strictly around it."""
    if a == b:
        return False
    if a[:2] == b[:2]:
        return True
    if a[0] == a[1]:
        return b[0] < a[0] < b[1]
    if b[0] == b[1]:
        return a[0] < b[0] < a[1]
    return a[0] < b[1] and b[0] < a[1]


def disjoint(spans: Iterable[Span], length: int) -> list[Span]:
    """`spans` from the last to the first, ready to apply; ValueError when two overlap (an insertion
    may touch a replacement's ends) or one falls outside a text of `length` characters."""
    ordered = sorted(spans, key=lambda span: (span[0], span[1], span[2]), reverse=True)
    limit = length
    for start, end, _ in ordered:
        if not 0 <= start <= end <= limit:
            raise ValueError("fix edits overlap or fall outside the file")
        limit = start
    return ordered


def newline_of(source: str) -> str:
    """The line end the file writes, as its first line ends (black's rule); "\n" when it has none."""
    first = _LINE_END.search(source)
    return first.group() if first else "\n"


def in_newline_style(content: str, newline: str) -> str:
    """`content` (an edit's text, written with "\n") with every line end written `newline`: a CRLF
    file stays CRLF. Python reads every line end in source as "\n" (string literals included), so
    this changes no program's meaning."""
    if newline == "\n" and "\r" not in content:
        return content
    return _LINE_END.sub(newline, content)


def apply_spans(source: str, spans: Iterable[Span]) -> str:
    text = source
    newline = newline_of(source)
    # Bottom-up, so earlier offsets stay valid; at one point, insertions in a stable order.
    for start, end, content in disjoint(spans, len(source)):
        text = text[:start] + in_newline_style(content, newline) + text[end:]
    return text


def apply_edits(source: str, edits: Iterable[Edit]) -> str:
    """Apply non-overlapping edits; ValueError when they overlap or fall outside the text."""
    starts = line_starts(source)
    return apply_spans(source, [edit_span(edit, starts) for edit in edits])


def apply_in_order(source: str, fixes: Sequence[Fix]) -> tuple[str, list[bool]]:
    """One pass of `--fix` over a file: `fixes` in order, each all-or-nothing, a fix that overlaps an
    accepted one skipped; the rewritten text, and for each fix whether it was applied. Identical
    edits (the same `import torch` insertion, the same fix shared by several findings) apply once.
    The review's fix preview applies fixes here too, so it cannot drift from the rewrite."""
    starts = line_starts(source)
    accepted: set[Span] = set()
    applied: list[bool] = []
    for fix in fixes:
        spans = [edit_span(edit, starts) for edit in fix.edits]
        usable = not any(clash(span, other) for span in spans for other in accepted)
        if usable:
            try:
                disjoint(spans, len(source))
            except ValueError:
                usable = False  # the fix's own edits overlap: it cannot be applied cleanly
        applied.append(usable)
        if usable:
            accepted.update(spans)
    return apply_spans(source, accepted), applied


def parses(source: str) -> bool:
    """Whether edited source is still Python: a rewrite that does not parse is never written or suggested."""
    try:
        ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True
