"""Turn a Finding's Fix into the text of a GitHub ```suggestion block.

A suggestion replaces whole lines, so the block holds every line the fix's edits touch, with the
edits applied. Columns are 1-based characters and end locations are exclusive (ruff's convention).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from graphmend_bot.findings import Edit, Finding, Location


@dataclass(frozen=True)
class Suggestion:
    first_line: int
    last_line: int
    text: str  # the replacement for lines first_line..last_line, without the final newline


def _offset(lines: list[str], location: Location) -> int:
    """Character offset of a 1-based (row, column) in the text made of `lines` (with newlines)."""
    if location.row > len(lines):
        return sum(len(line) for line in lines)
    return sum(len(line) for line in lines[: location.row - 1]) + location.column - 1


def apply_edits(source: str, edits: Iterable[Edit]) -> str:
    """Apply non-overlapping edits; raises ValueError when they overlap or fall outside the text."""
    lines = source.splitlines(keepends=True)
    spans = sorted(((_offset(lines, e.location), _offset(lines, e.end_location), e.content) for e in edits), reverse=True)
    text = source
    limit = len(source) + 1
    for start, end, content in spans:
        if not 0 <= start <= end <= len(source) or end > limit:
            raise ValueError("fix edits overlap or fall outside the file")
        text = text[:start] + content + text[end:]
        limit = start
    return text


def suggestion_for(finding: Finding, source: str, unsafe: bool = False) -> Suggestion | None:
    """The suggestion for a finding's safe fix (or unsafe one too, with `unsafe`), or None when it
    has none or it cannot be applied."""
    fix = finding.fix
    if fix is None or (fix.applicability != "safe" and not unsafe) or not fix.edits:
        return None
    lines = source.splitlines(keepends=True)
    first = min(e.location.row for e in fix.edits)
    last = max(e.end_location.row - 1 if e.end_location.column == 1 and e.end_location.row > e.location.row
               else e.end_location.row for e in fix.edits)
    last = max(last, first)
    if last > len(lines):
        return None
    region_start = _offset(lines, Location(first, 1))
    region_end = region_start + sum(len(line) for line in lines[first - 1:last])
    try:
        fixed = apply_edits(source, fix.edits)
    except ValueError:
        return None
    # Everything outside the region is unchanged, so the region's end moved by the length change.
    new_end = region_end + len(fixed) - len(source)
    replacement = fixed[region_start:new_end]
    if replacement.endswith("\n"):
        replacement = replacement[:-1]
    if replacement.endswith("\r"):
        replacement = replacement[:-1]
    return Suggestion(first, last, replacement)
