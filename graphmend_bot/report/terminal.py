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

import os
import stat
from typing import TextIO

from graphmend_bot.report.controls import visible
from graphmend_bot.report.github import inert_line

__all__ = ["one_line", "shown_to_a_person", "terminal_text", "visible"]


def terminal_text(text: str) -> str:
    """A report's lines (split at `\\n`), each visible and never a workflow command. A `\\r` ending a
    line is kept: it moves nothing before the newline, and a CRLF file's patch still applies."""
    return "\n".join(_shown_line(line) for line in text.split("\n"))


def _shown_line(line: str) -> str:
    if line.endswith("\r"):
        return inert_line(visible(line[:-1])) + "\r"
    return inert_line(visible(line))


def one_line(text: str) -> str:
    """`text` as one visible line that is never a workflow command: an error message that may quote
    a path or a setting of the checked tree (its newlines shown as `\\x0a`)."""
    return inert_line(visible(text))


def shown_to_a_person(stream: TextIO) -> bool:
    """Whether `stream` may reach a terminal or a GitHub Actions log (where `::` lines are obeyed),
    rather than a pipe or a file, where output such as `--diff`'s patch must stay byte-exact. In
    Actions the log is a pipe like any other: only a file (`> fix.patch`) is known not to be it."""
    if stream.isatty():
        return True
    return bool(os.environ.get("GITHUB_ACTIONS")) and not _is_regular_file(stream)


def _is_regular_file(stream: TextIO) -> bool:
    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (OSError, ValueError):  # no descriptor (a test's StringIO): not known to be a file
        return False
