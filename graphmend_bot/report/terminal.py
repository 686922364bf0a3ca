"""Untrusted text bound for a terminal or a CI log, shown and never obeyed.

The text report quotes the checked tree's author: file names, source lines, messages that quote
code. Printed raw, a control character in them drives the terminal (`\x1b[2J` clears it, an OSC
sequence sets its title or hides a link behind other text), a right-to-left override displays a
line reordered, and a line that starts with `::` (or holds `##[`) is a workflow command once the
output lands in a GitHub Actions log, where pre-commit runs the hook. `visible` shows each such
character as its escape (`\x1b`, `\u202e`), and `terminal_text` makes every line of a report
visible and inert (report/github.py's `inert_line`, which the bot's log uses too).
"""

from __future__ import annotations

import re

from graphmend_bot.fences import BIDI_CONTROLS
from graphmend_bot.report.github import inert_line

# C0 but the tab, DEL, C1, Unicode's line and paragraph separators and the bidirectional controls.
_UNSHOWN = re.compile(rf"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]|{BIDI_CONTROLS.pattern}")


def visible(text: str) -> str:
    """`text` with every control character (newlines too) written as its Python escape."""
    return _UNSHOWN.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_text(text: str) -> str:
    """A report's lines (split at `\\n`), each visible and never a workflow command."""
    return "\n".join(inert_line(visible(line)) for line in text.split("\n"))
