"""What the step leaves behind whatever happens on the API: log lines, annotations, the job
summary, the SARIF file and the step outputs."""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path

from graphmend_bot.findings import CheckResult, Finding
from graphmend_bot.report.github import OLD_COMMAND_BROKEN, annotation, inert_line, workflow_command
from graphmend_bot.report.sarif import render_sarif
from graphmend_bot.report.terminal import visible

# Plain log lines quote text from pull requests and from the measured report (file names, entry
# point names, errors): `inert_line` keeps each from forming a workflow command of its own.
_TITLE = (("title", "GraphMend"),)


class Log:
    """The Actions log: plain lines and `::notice|warning|error::` workflow commands."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def _write(self, line: str) -> None:
        # Every line: no `##[` command, no control character (an ANSI or OSC escape) left raw.
        line = "\n".join(visible(part) for part in line.split("\n")).replace("##[", OLD_COMMAND_BROKEN)
        self.lines.append(line)
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def info(self, message: str) -> None:
        self._write("\n".join(inert_line(line) for line in message.replace("\r", "\n").split("\n")))

    def notice(self, message: str) -> None:
        self._write(workflow_command("notice", _TITLE, inert_line(message)))

    def warning(self, message: str) -> None:
        self._write(workflow_command("warning", _TITLE, inert_line(message)))

    def error(self, message: str) -> None:
        self._write(workflow_command("error", _TITLE, inert_line(message)))

    def annotations(self, findings: Iterable[Finding]) -> int:
        count = 0
        for finding in findings:
            self._write(annotation(finding))
            count += 1
        return count


def write_sarif(result: CheckResult, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(render_sarif(result), indent=2) + "\n", encoding="utf-8")


def append_summary(path: Path | None, markdown: str) -> None:
    if path is None:
        return
    with path.open("a", encoding="utf-8") as handle:
        handle.write(markdown.rstrip("\n") + "\n\n")


def write_outputs(path: Path | None, values: Mapping[str, str]) -> None:
    """GITHUB_OUTPUT: `name=value` lines, or a heredoc block for multi-line values."""
    if path is None:
        return
    with path.open("a", encoding="utf-8") as handle:
        for name, value in values.items():
            if "\n" in value:
                delimiter = f"ghadelimiter_{uuid.uuid4()}"
                handle.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
            else:
                handle.write(f"{name}={value}\n")
