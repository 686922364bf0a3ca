"""GitHub Actions workflow commands: one annotation per finding, `::error` per unreadable file.

The one owner of workflow-command escaping: the bot's log (github/core/outputs.py) builds its
`::notice|warning|error::` lines with `workflow_command` too, and its plain lines and the text
report (report/terminal.py) are kept from forming a command with `inert_line`.
"""

from __future__ import annotations

from collections.abc import Sequence

from graphmend_bot.findings import CheckResult, Finding
from graphmend_bot.report.controls import visible

# The runner obeys a line as a workflow command when, stripped, it starts with `::`, or when it
# holds the old `##[` form anywhere: a zero-width space breaks either.
_ZERO_WIDTH = "\u200b"
OLD_COMMAND_BROKEN = f"##{_ZERO_WIDTH}["


def escape_data(text: str) -> str:
    """The message part of a workflow command (after the second `::`)."""
    # Newlines escaped, and the old `##[` command form broken: file names and messages come from
    # pull requests and must never form a workflow command of their own. Any other control character
    # is shown as its escape: the runner has no encoding for it, and the line is printed raw when the
    # format is read in a terminal.
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return visible(text).replace("##[", OLD_COMMAND_BROKEN)


def inert_line(line: str) -> str:
    """`line` as a log or a terminal shows it, but never a workflow command (the text report and
    the bot's log lines quote file names and code, and pre-commit's output lands in Actions logs)."""
    line = line.replace("##[", OLD_COMMAND_BROKEN)
    stripped = line.lstrip()
    if stripped.startswith("::"):
        line = line[:len(line) - len(stripped)] + f":{_ZERO_WIDTH}{stripped[1:]}"
    return line


def escape_property(text: str) -> str:
    """A property value (`file=`, `title=`): `:` and `,` would end it."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(command: str, properties: Sequence[tuple[str, str]], message: str) -> str:
    """`::command key=value,...::message`, every part escaped."""
    props = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
    return f"::{command} {props}::{escape_data(message)}" if props else f"::{command}::{escape_data(message)}"


def annotation(finding: Finding, level: str = "warning") -> str:
    loc, end = finding.location, finding.end_location
    props = [("file", finding.path), ("line", str(loc.row)), ("col", str(loc.column)), ("endLine", str(end.row))]
    if end.row == loc.row:
        props.append(("endColumn", str(end.column)))
    props.append(("title", f"{finding.code} graph break ({finding.gb_id})"))
    message = finding.message + (f" ({finding.evidence.describe()})" if finding.evidence else "")
    return workflow_command(level, props, message)


def render_github(result: CheckResult) -> str:
    lines = [annotation(f) for f in result.findings]
    lines += [workflow_command(e.label, [("file", e.path)], e.message) for e in result.errors]
    return "\n".join(lines) + ("\n" if lines else "")
