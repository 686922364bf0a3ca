"""Hidden HTML markers that let the bot find its own comments again on the next run.

A marker is plain text anyone can type: it only ever counts in text the bot's own login wrote
(identity.py), and grants nothing by itself. Even there it counts only as the body's last line, where
the bot writes it: the bot's comments quote text from pull requests (a command, a line of code, a
file name), and a marker inside that quote must not turn the comment into another one."""

from __future__ import annotations

import re

SUMMARY_MARKER = "<!-- graphmend:summary -->"
_FINDING = re.compile(r"<!-- graphmend:finding (?P<key>[0-9a-f]{16}(?:\.\d+)?)(?P<resolved> resolved)? -->")


def finding_marker(key: str, resolved: bool = False) -> str:
    return f"<!-- graphmend:finding {key}{' resolved' if resolved else ''} -->"


def parse_finding_marker(body: str | None) -> tuple[str, bool] | None:
    """(key, resolved) of the finding marker that ends a comment body, or None."""
    match = _FINDING.fullmatch(last_line(body))
    return (match["key"], match["resolved"] is not None) if match else None


def is_summary(body: str | None) -> bool:
    return last_line(body) == SUMMARY_MARKER


def last_line(body: str | None) -> str:
    """The body's last non-blank line, stripped: the only place a marker counts."""
    return (body or "").rstrip().rpartition("\n")[2].strip()

# The fix pull request, its verification section, the tracking issue and the bot's replies.
FIX_PR_MARKER = "<!-- graphmend:fix-pr -->"
VERIFICATION_START = "<!-- graphmend:verification -->"
VERIFICATION_END = "<!-- /graphmend:verification -->"
TRACKING_MARKER = "<!-- graphmend:tracking -->"
REPLY_MARKER = "<!-- graphmend:reply -->"
VERIFY_MARKER = "<!-- graphmend:verify -->"


def is_fix_pr(body: str | None) -> bool:
    """Whether `body` ends with the fix pull request's marker (the code it quotes may hold the text too)."""
    return last_line(body) == FIX_PR_MARKER


def tracking_lines(body: str | None) -> tuple[bool, str]:
    """(whether `body` is a tracking issue's, its last line: the snapshot) from the two lines the bot
    ends it with, the tracking marker then the snapshot; a file name in its tables may hold either."""
    lines = (body or "").rstrip().split("\n")
    return len(lines) >= 2 and lines[-2].strip() == TRACKING_MARKER, lines[-1].strip()
