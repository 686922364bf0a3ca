"""A baseline: the findings a project had when it adopted graphmend, hidden from later runs so a
commit is judged by what it adds (ESLint's and ruff-adopters' baseline files).

Each finding is matched by a fingerprint of its rule, file (relative to the baseline's folder),
function, source line with its whitespace collapsed, and which of several identical lines it is:
no line number, so code moved up or down by an edit above it still matches, and a changed line
is a new finding. The file is JSON, one finding per entry, sorted, so its diffs review well.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Iterable, Sequence
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


@dataclass(frozen=True)
class Baseline:
    path: Path
    fingerprints: Counter[str]

    def split(self, findings: Sequence[Finding]) -> tuple[list[Finding], int]:
        """(the findings not in the baseline, how many were): each entry hides one finding."""
        left = Counter(self.fingerprints)
        new = []
        for finding in findings:
            key = fingerprint(finding, self.path.parent)
            if left[key]:
                left[key] -= 1
            else:
                new.append(finding)
        return new, len(findings) - len(new)


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
    return Baseline(path, Counter(entry["fingerprint"] for entry in entries))


def write_baseline(path: Path, findings: Iterable[Finding]) -> int:
    """Write every finding to `path`; returns how many."""
    root = path.parent
    entries = sorted(
        (
            {"fingerprint": fingerprint(f, root), "code": code, "path": file, "symbol": symbol, "line": line}
            for f in findings
            for code, file, symbol, line, _ in [_identity(f, root)]
        ),
        key=lambda entry: (entry["path"], entry["code"], entry["symbol"], entry["line"], entry["fingerprint"]),
    )
    document = {"comment": HEADER, "version": VERSION, "findings": entries}
    path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    return len(entries)


def without_baselined(result: CheckResult, config: Config) -> CheckResult:
    """`result` less the findings the configured baseline holds (the result itself when none is)."""
    path = baseline_path(config)
    if path is None:
        return result
    findings, hidden = load_baseline(path).split(result.findings)
    return replace(result, findings=findings, baselined=result.baselined + hidden)
