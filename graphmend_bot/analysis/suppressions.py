"""`# graphmend: ignore[GM301]` comments: which findings they hide, which codes in them name no
rule (a warning: such a comment hides nothing), and how `--add-noqa` writes one."""

from __future__ import annotations

import re
from collections.abc import Container, Iterable, Iterator

from graphmend_bot.source_lines import physical_lines

# The codes are read case-insensitively; anything between the brackets is taken, so a typo is
# reported rather than read as a bare `ignore` (which hides every rule).
SUPPRESSION = re.compile(r"#\s*graphmend:\s*ignore(?:\[(?P<codes>[^\]\n]*)\])?")
MARKER = "graphmend:"


def _codes(text: str) -> list[str]:
    return [code.strip().upper() for code in text.split(",") if code.strip()]


def suppressed(lines: list[str], row: int, end_row: int, code: str) -> bool:
    """Whether a comment on one of the finding's lines (1-based) hides `code`."""
    for line in lines[row - 1 : end_row]:
        match = SUPPRESSION.search(line)
        if match:
            codes = match.group("codes")
            if codes is None or code in _codes(codes):
                return True
    return False


EVERY_CODE = "*"  # what a bare `# graphmend: ignore` names


def comments(lines: list[str], known: Container[str]) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """(line, codes) of each suppression comment, ModuleSummary.suppressions: only the `known`
    codes (one that is no rule's hides nothing, and a comment naming only such codes is no entry,
    so adding one keeps the last solve usable: analysis/incremental.py)."""
    found: list[tuple[int, tuple[str, ...]]] = []
    for row, line in enumerate(lines, 1):
        match = SUPPRESSION.search(line)
        if match:
            codes = match.group("codes")
            named = (EVERY_CODE,) if codes is None else tuple(code for code in _codes(codes) if code in known)
            if named:
                found.append((row, named))
    return tuple(found)


def hidden(comments: tuple[tuple[int, tuple[str, ...]], ...], row: int, end_row: int, code: str) -> bool:
    """Whether one of `comments` on the finding's lines hides `code` (`suppressed`, from the summary)."""
    return any(row <= line <= end_row and (EVERY_CODE in codes or code in codes) for line, codes in comments)


def unknown_suppression_codes(source: str, known: Iterable[str]) -> Iterator[tuple[int, list[str]]]:
    """(line, codes) for each comment naming codes that are no rule's: such a comment hides nothing."""
    if MARKER not in source:  # most files: no comment at all, no per-line search
        return
    rules = set(known)
    for row, line in enumerate(physical_lines(source), 1):
        match = SUPPRESSION.search(line)
        if match and match.group("codes") is not None:
            unknown = [code for code in _codes(match.group("codes")) if code not in rules]
            if unknown:
                yield row, unknown


def with_suppression(line: str, codes: Iterable[str]) -> str:
    """`line` with `codes` added to its `# graphmend: ignore[...]` comment, or a new comment at its end.

    A bare `# graphmend: ignore` already hides everything and is kept as it is."""
    body, newline = (line[:-1], "\n") if line.endswith("\n") else (line, "")
    if body.endswith("\r"):
        body, newline = body[:-1], "\r" + newline
    match = SUPPRESSION.search(body)
    if match and match.group("codes") is None:
        return line
    if match:
        merged = sorted({*_codes(match.group("codes")), *codes})
        body = f"{body[:match.start()]}# graphmend: ignore[{', '.join(merged)}]{body[match.end():]}"
    else:
        body = f"{body.rstrip()}  # graphmend: ignore[{', '.join(sorted(set(codes)))}]"
    return body + newline
