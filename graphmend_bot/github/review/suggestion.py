"""Turn a Finding's Fix into the text of a GitHub ```suggestion block.

A suggestion replaces whole lines, so the block holds every line the fix's edits touch, with the
edits applied (graphmend_bot/edits.py applies them, as it does for `--fix`).
"""

from __future__ import annotations

from dataclasses import dataclass

from graphmend_bot.edits import apply_edits, line_starts, parses, split_lines
from graphmend_bot.findings import Finding


@dataclass(frozen=True)
class Suggestion:
    first_line: int
    last_line: int
    text: str  # the replacement for lines first_line..last_line, without the final newline


def suggestion_for(finding: Finding, source: str, unsafe: bool = False) -> Suggestion | None:
    """The suggestion for a finding's safe fix (or unsafe one too, with `unsafe`), or None when it
    has none, it cannot be applied, or the file it would leave does not parse."""
    fix = finding.fix
    if fix is None or (fix.applicability != "safe" and not unsafe) or not fix.edits:
        return None
    lines = split_lines(source)
    first = min(e.location.row for e in fix.edits)
    last = max(e.end_location.row - 1 if e.end_location.column == 1 and e.end_location.row > e.location.row
               else e.end_location.row for e in fix.edits)
    last = max(last, first)
    if last > len(lines):
        return None
    starts = line_starts(source)
    region_start, region_end = starts[first - 1], starts[last]
    try:
        fixed = apply_edits(source, fix.edits)
    except ValueError:
        return None
    if not parses(fixed):
        return None
    # Everything outside the region is unchanged, so the region's end moved by the length change.
    new_end = region_end + len(fixed) - len(source)
    replacement = fixed[region_start:new_end]
    if replacement.endswith("\n"):
        replacement = replacement[:-1]
    if replacement.endswith("\r"):
        replacement = replacement[:-1]
    return Suggestion(first, last, replacement)
