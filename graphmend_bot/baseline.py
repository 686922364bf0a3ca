"""A baseline: the findings a project had when it adopted graphmend, hidden from later runs so a
commit is judged by what it adds (ESLint's and ruff-adopters' baseline files).

Each finding is matched by its rule, file (relative to the baseline's folder), function and
source line with its whitespace collapsed (and a fingerprint of those and which of several
identical lines it is): no line number, so code moved up or down by an edit above it still
matches, and a changed line is a new finding. When a function holds more identical lines than
the baseline has entries for them, the line numbers decide which are new: a change's diff first
(`review`: lines it added are new, unchanged ones take the entries), then the line each entry was
written at (the nearest finding takes it). The file is JSON, one finding per entry, sorted, so
its diffs review well.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePath

from graphmend_bot.analysis.files import outside_read_root
from graphmend_bot.config import Config, ConfigError
from graphmend_bot.findings import CheckResult, Finding
from graphmend_bot.json_files import JsonFileError, read_json_file

VERSION = 1
MAX_BASELINE_BYTES = 20 * 1024 * 1024
HEADER = "graphmend baseline: findings that existed when it was written; `graphmend check --update-baseline` rewrites it"


def baseline_path(config: Config) -> Path | None:
    """The configured baseline: `--baseline` as given, `baseline = ...` relative to its config file."""
    if not config.baseline:
        return None
    path = Path(config.baseline)
    if not path.is_absolute() and config.source:
        path = Path(config.source).parent / path
    return path


def fingerprint(finding: Finding, root: Path) -> str:
    return hashlib.sha256("\0".join(_identity(finding, root)).encode()).hexdigest()[:16]


def _identity(finding: Finding, root: Path) -> tuple[str, str, str, str, str]:
    path = PurePath(os.path.relpath(os.path.abspath(finding.path), root)).as_posix()
    return finding.code, path, finding.symbol, " ".join(finding.source_line.split()), str(finding.occurrence)


Identity = tuple[str, str, str, str]  # rule, file, function, line text: a fingerprint less the occurrence


@dataclass(frozen=True)
class Entry:
    fingerprint: str
    identity: Identity | None  # None: an entry with a fingerprint alone, matched by it exactly
    row: int | None  # the line it was written at (baselines written before 2026-11 have none)


@dataclass(frozen=True)
class Baseline:
    path: Path
    entries: tuple[Entry, ...]

    def split(self, findings: Sequence[Finding],
              added: Mapping[str, Collection[int]] | None = None) -> tuple[list[Finding], int]:
        """(the findings not in the baseline, how many were): each entry hides one finding.
        `added`: lines a change added, by path; among identical findings they are new first."""
        root = self.path.parent
        groups: defaultdict[Identity, list[int]] = defaultdict(list)
        for index, finding in enumerate(findings):
            groups[_identity(finding, root)[:4]].append(index)
        hidden: set[int] = set()
        exact = Counter(entry.fingerprint for entry in self.entries if entry.identity is None)
        for identity, rows in _rows_by_identity(self.entries).items():
            hidden |= _nearest(rows, [(i, findings[i]) for i in groups.get(identity, [])], added or {})
        new = []
        for index, finding in enumerate(findings):
            key = fingerprint(finding, root)
            if index in hidden:
                continue
            if exact[key]:
                exact[key] -= 1
            else:
                new.append(finding)
        return new, len(findings) - len(new)


def _rows_by_identity(entries: Iterable[Entry]) -> dict[Identity, list[int | None]]:
    rows: defaultdict[Identity, list[int | None]] = defaultdict(list)
    for entry in entries:
        if entry.identity is not None:
            rows[entry.identity].append(entry.row)
    return rows


def _nearest(rows: Sequence[int | None], candidates: Sequence[tuple[int, Finding]],
             added: Mapping[str, Collection[int]]) -> set[int]:
    """Which of the identical `candidates` (index, finding) the entries written at `rows` hide: a
    line the change added last, then the finding nearest an entry's line (at or below it on a tie:
    an edit above moves code down); with no line numbers, in source order (the occurrence)."""
    if len(candidates) <= len(rows):
        return {index for index, _ in candidates}
    pairs = sorted(
        (finding.location.row in added.get(finding.path, ()),
         abs(finding.location.row - row) if row is not None else 0,
         row is not None and finding.location.row < row, finding.location.row, index, slot)
        for slot, row in enumerate(rows) for index, finding in candidates)
    hidden: set[int] = set()
    used: set[int] = set()
    for *_, index, slot in pairs:
        if index not in hidden and slot not in used:
            hidden.add(index)
            used.add(slot)
    return hidden


def load_baseline(path: Path) -> Baseline:
    """The baseline at `path`; one that is missing or malformed is a configuration error (exit 2)."""
    if outside_read_root(str(path)):  # the bot: a pull request's symlink out of the workspace
        raise ConfigError(f"baseline {path}: a symlink to a file outside the workspace is never read")
    try:
        data = read_json_file(path, MAX_BASELINE_BYTES)
    except JsonFileError as error:
        if error.missing:
            raise ConfigError(f"baseline {path} does not exist; write it with `graphmend check --update-baseline`") from None
        raise ConfigError(f"baseline {path}: cannot read: {error}") from None
    entries = data.get("findings") if isinstance(data, dict) and data.get("version") == VERSION else None
    if not isinstance(entries, list) or not all(
        isinstance(entry, dict) and isinstance(entry.get("fingerprint"), str) for entry in entries
    ):
        raise ConfigError(f"baseline {path}: not a version {VERSION} graphmend baseline (a `findings` list of "
                          "objects with a `fingerprint`)")
    return Baseline(path, tuple(_entry(entry) for entry in entries))


def _entry(entry: dict[str, object]) -> Entry:
    """An entry as written: one without its fields (made by hand) is matched by its fingerprint."""
    fields = [entry.get(name) for name in ("code", "path", "symbol", "line")]
    identity = (str(fields[0]), str(fields[1]), str(fields[2]), str(fields[3])) \
        if all(isinstance(value, str) for value in fields) else None
    row = entry.get("row")
    return Entry(str(entry["fingerprint"]), identity,
                 row if isinstance(row, int) and not isinstance(row, bool) and row > 0 else None)


def write_baseline(path: Path, findings: Iterable[Finding]) -> int:
    """Write every finding to `path`; returns how many."""
    root = path.parent
    entries = sorted(
        (
            {"fingerprint": fingerprint(f, root), "code": code, "path": file, "symbol": symbol, "line": line,
             "row": f.location.row}
            for f in findings
            for code, file, symbol, line, _ in [_identity(f, root)]
        ),
        key=lambda entry: (entry["path"], entry["code"], entry["symbol"], entry["line"], entry["row"],
                           entry["fingerprint"]),
    )
    document = {"comment": HEADER, "version": VERSION, "findings": entries}
    path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    return len(entries)


def without_baselined(result: CheckResult, config: Config,
                      added: Mapping[str, Collection[int]] | None = None) -> CheckResult:
    """`result` less the findings the configured baseline holds (the result itself when none is);
    `added`: the lines a change added, by path (Baseline.split)."""
    path = baseline_path(config)
    if path is None:
        return result
    findings, hidden = load_baseline(path).split(result.findings, added)
    return replace(result, findings=findings, baselined=result.baselined + hidden)
