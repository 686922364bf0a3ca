"""Descriptions GitHub accepts: it refuses a pull request or issue body over 65,536 characters
(422 "body is too long"), and then the fix pull request or the tracking issue stops updating. Bodies
that grow with the project are built against a budget: their lists are cut, never the lines the bot
reads back."""

from __future__ import annotations

from collections.abc import Sequence

GITHUB_BODY_LIMIT = 65_536


def body_size(lines: Sequence[str]) -> int:
    """Characters `lines` take in a body, each with its newline."""
    return sum(len(line) + 1 for line in lines)


def lines_fitting(lines: Sequence[str], room: int) -> int:
    """How many of `lines`, from the first, fit in `room` characters."""
    used = 0
    for count, line in enumerate(lines):
        used += len(line) + 1
        if used > room:
            return count
    return len(lines)


def first_few(items: Sequence[str], limit: int, separator: str = ", ") -> str:
    """The first `limit` of `items` joined, and how many more there are: text a body repeats from a
    list that grows with the project (fix names, reasons) stays bounded."""
    shown = separator.join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def clipped(text: str, room: int) -> str:
    """`text`, cut to `room` characters with a closing mark when longer."""
    return text if len(text) <= room else text[: max(room - 14, 0)].rstrip() + " ... (cut)"
