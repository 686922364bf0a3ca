"""`graphmend check --add-noqa`: a `# graphmend: ignore[CODE]` comment on each finding's line, so a
project adopts the checker with its existing findings acknowledged in place (ruff's --add-noqa).

A comment must not change what the file computes: it goes on the first line of the finding that
can end with one (not inside a multi-line string, not after a backslash), and every edit is
checked by parsing the file again and comparing its syntax tree with the original's. A finding
with no such line is left alone and counted.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from graphmend_bot.analysis.files import outside, read_source
from graphmend_bot.analysis.suppressions import with_suppression
from graphmend_bot.findings import Finding
from graphmend_bot.source_lines import physical_lines


@dataclass
class NoqaOutcome:
    added: int = 0  # findings now covered by a comment
    files: int = 0  # files written
    skipped: int = 0  # findings no line could take a comment for
    outside: list[str] = field(default_factory=list)  # files left alone: a symlink out of the project


def add_noqa(findings: Iterable[Finding], write_root: str) -> NoqaOutcome:
    """Comment the findings in their files; a file whose real path is outside `write_root` (the
    project root, a real path) is never written, whatever symlink leads there."""
    by_file: dict[str, list[Finding]] = defaultdict(list)
    for finding in findings:
        by_file[finding.path].append(finding)
    outcome = NoqaOutcome()
    for path, file_findings in sorted(by_file.items()):
        if outside(path, write_root):
            outcome.outside.append(path)
            continue
        try:
            source = read_source(path)
            original = ast.dump(ast.parse(source))
        except (ValueError, SyntaxError):
            outcome.skipped += len(file_findings)
            continue
        lines = physical_lines(source, keepends=True)
        added = 0
        for finding in file_findings:
            if _comment_one(lines, finding, original):
                added += 1
            else:
                outcome.skipped += 1
        if added:
            with open(path, "w", encoding=_encoding(path), newline="") as handle:
                handle.write("".join(lines))
            outcome.added += added
            outcome.files += 1
    return outcome


def _comment_one(lines: list[str], finding: Finding, original: str) -> bool:
    """Comment the first line of the finding that takes one without changing the program."""
    last = min(max(finding.end_location.row, finding.location.row), len(lines))
    for row in range(finding.location.row, last + 1):
        candidate = with_suppression(lines[row - 1], [finding.code])
        if candidate == lines[row - 1]:
            return True  # a bare `# graphmend: ignore` already covers it
        trial = [*lines[: row - 1], candidate, *lines[row:]]
        try:
            same = ast.dump(ast.parse("".join(trial))) == original
        except SyntaxError:
            same = False
        if same:
            lines[row - 1] = candidate
            return True
    return False


def _encoding(path: str) -> str:
    import tokenize

    with open(path, "rb") as handle:
        return tokenize.detect_encoding(handle.readline)[0]
