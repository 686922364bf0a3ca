"""Hidden HTML markers that let the bot find its own comments again on the next run."""

from __future__ import annotations

import re

SUMMARY_MARKER = "<!-- graphmend:summary -->"
_FINDING = re.compile(r"<!-- graphmend:finding (?P<key>[0-9a-f]{16}(?:\.\d+)?)(?P<resolved> resolved)? -->")


def finding_marker(key: str, resolved: bool = False) -> str:
    return f"<!-- graphmend:finding {key}{' resolved' if resolved else ''} -->"


def parse_finding_marker(body: str | None) -> tuple[str, bool] | None:
    """(key, resolved) of the last finding marker in a comment body (the bot's own comes last)."""
    matches = list(_FINDING.finditer(body or ""))
    if not matches:
        return None
    match = matches[-1]
    return match["key"], match["resolved"] is not None


def is_summary(body: str | None) -> bool:
    return SUMMARY_MARKER in (body or "")
