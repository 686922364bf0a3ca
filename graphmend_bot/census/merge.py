"""Static findings + the census: what Dynamo confirmed, what it saw that the analysis missed, and
what ran in the tests without a break.

A finding covers the lines of its statement (Dynamo names the line of the instruction that broke,
which in a multi-line statement may be any of them). A census break on no finding's lines becomes
a finding of its own under the runtime rule, with Dynamo's reason and graph-break id.

This module needs no torch: the census is plain data by the time it is merged.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from graphmend_bot.analysis.files import read_source
from graphmend_bot.census.record import BreakRecord, Census
from graphmend_bot.findings import CheckResult, Evidence, Finding, Location
from graphmend_bot.rules.gm801_dynamo_break import RULE as RUNTIME_RULE
from graphmend_bot.source_lines import physical_lines

RUNTIME_CODE = RUNTIME_RULE.code  # a break only Dynamo saw


def merge_census(result: CheckResult, census: Census, root: Path, checked_files: Iterable[str] = (),
                 codes: frozenset[str] | None = None) -> CheckResult:
    """A new CheckResult: every finding with its census evidence, plus a runtime finding for each
    break only Dynamo saw in one of `checked_files` (as the check shows paths), when `codes` (the
    selected rule codes) allows the runtime rule. Paths in the census are relative to `root`."""
    by_file: dict[str, list[Finding]] = {}
    merged: list[Finding] = []
    for finding in result.findings:
        key = _repository_path(finding.path, root)
        evidence = _evidence(finding, key, census, root)
        merged.append(replace(finding, evidence=evidence) if evidence is not None else finding)
        by_file.setdefault(key, []).append(finding)
    if codes is None or RUNTIME_CODE in codes:
        checked = {_repository_path(path, root): path for path in checked_files}
        for record in census.breaks:
            shown = checked.get(record.path)
            if shown is not None and not any(_covers(f, record.line) for f in by_file.get(record.path, [])):
                merged.append(_runtime_finding(record, shown, _source(shown)))
    merged.sort(key=lambda f: f.sort_key)
    return replace(result, findings=merged, errors=list(result.errors))


def _source(path: str) -> str:
    try:
        return read_source(path)
    except ValueError:  # unreadable now: the finding keeps Dynamo's line, without its text
        return ""


def _repository_path(path: str, root: Path) -> str:
    return Path(os.path.relpath(os.path.abspath(path), root)).as_posix()


def _covers(finding: Finding, line: int) -> bool:
    return finding.location.row <= line <= finding.end_location.row


def _evidence(finding: Finding, path: str, census: Census, root: Path) -> Evidence | None:
    """What the census saw on the finding's lines (on the break's own line for one at the call
    that brings it into traced code)."""
    if finding.breaks_at:
        where, _, row = finding.breaks_at.rpartition(":")
        if not row.isdigit():
            return None
        finding = replace(finding, location=Location(int(row), 0), end_location=Location(int(row), 0))
        path = _repository_path(where, root)
    for line in range(finding.location.row, finding.end_location.row + 1):
        record = census.break_at(path, line)
        if record is not None:
            return Evidence("confirmed", record.test, record.reason, record.gb_id)
    if any(census.ran(path, line) for line in range(finding.location.row, finding.end_location.row + 1)):
        return Evidence("ran-without-break", "", "", "")
    return None


def _runtime_finding(record: BreakRecord, path: str, source: str) -> Finding:
    lines = physical_lines(source)
    text = lines[record.line - 1] if 0 < record.line <= len(lines) else ""
    column = len(text) - len(text.lstrip()) + 1
    return Finding(
        code=RUNTIME_CODE,
        message=f"graph break seen by Dynamo in the tests: {record.reason}",
        path=path,
        location=Location(record.line, column),
        end_location=Location(record.line, max(column, len(text) + 1)),
        gb_id=record.gb_id,
        source_line=text,
        evidence=Evidence("confirmed", record.test, record.reason, record.gb_id),
    )
