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

