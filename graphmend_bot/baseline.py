"""A baseline: the findings a project had when it adopted graphmend, hidden from later runs so a
commit is judged by what it adds (ESLint's and ruff-adopters' baseline files).

Each finding is matched by its rule, file (relative to the baseline's folder), function and
source line's code (line_code.py: its comment left out, as the review and the census match
breaks) with its whitespace collapsed (and a fingerprint of those and which of several identical
lines it is): no line number, so code moved up or down by an edit above it still matches, a
comment edited on the line leaves it, and a changed line's code is a new finding. When a function holds more identical lines than
the baseline has entries for them, the diff and the lines around them decide which are new: a
change's diff first (`review`: lines it added are new, unchanged ones take the entries), then the
lines each entry had above and below it (kept as short digests), then the line each entry was
written at (the nearest finding takes it). The file is JSON, one finding per entry, sorted, so
its diffs review well.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePath

from graphmend_bot.analysis.files import outside, outside_read_root, read_source
from graphmend_bot.config import Config, ConfigError
from graphmend_bot.findings import CheckResult, Finding
from graphmend_bot.json_files import JsonFileError, json_value, read_json_file
from graphmend_bot.line_code import line_code
from graphmend_bot.source_lines import physical_lines

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
    return _digest_of(_identity(finding, root))


def _fingerprints(finding: Finding, root: Path) -> tuple[str, ...]:
    """The fingerprints an entry written for `finding` may hold: this one, and for a line with a
    comment the one baselines written before 2026-11-29 gave it (of the whole line)."""
    identity = _identity(finding, root)
    whole = " ".join(finding.source_line.split())
    if whole == identity[3]:
        return (_digest_of(identity),)
    return _digest_of(identity), _digest_of((*identity[:3], whole, identity[4]))


def _digest_of(identity: tuple[str, ...]) -> str:
    return hashlib.sha256("\0".join(identity).encode("utf-8", "surrogateescape")).hexdigest()[:16]  # any bytes


def _identity(finding: Finding, root: Path) -> tuple[str, str, str, str, str]:
    path = PurePath(os.path.relpath(os.path.abspath(finding.path), root)).as_posix()
    return finding.code, path, finding.symbol, _line_key(finding.source_line), str(finding.occurrence)


def _line_key(line: str) -> str:
    """A line as an entry names it: its code, whitespace collapsed. Dynamo reads no comment, and
    the review already calls `n = x.item()  # scalar` the break `n = x.item()` was (review15 #5)."""
    return " ".join(line_code(line).split())


Identity = tuple[str, str, str, str]  # rule, file, function, line text: a fingerprint less the occurrence


@dataclass(frozen=True)
class Entry:
    fingerprint: str
    identity: Identity | None  # None: an entry with a fingerprint alone, matched by it exactly
    row: int | None  # the line it was written at (baselines written before 2026-11 have none)
    # short digests of the nearest non-blank lines above and below it then (none in older baselines)
    neighbours: tuple[str, str] | None = None


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
        lines = _FileLines()
        for identity, written in _entries_by_identity(self.entries).items():
            hidden |= _nearest(written, [(i, findings[i]) for i in groups.get(identity, [])], added or {}, lines)
        new = []
        for index, finding in enumerate(findings):
            if index in hidden:
                continue
            key = next((key for key in _fingerprints(finding, root) if exact[key]), None) if exact else None
            if key is not None:
                exact[key] -= 1
            else:
                new.append(finding)
        return new, len(findings) - len(new)


def _entries_by_identity(entries: Iterable[Entry]) -> dict[Identity, list[Entry]]:
    found: defaultdict[Identity, list[Entry]] = defaultdict(list)
    for entry in entries:
        if entry.identity is not None:
            found[entry.identity].append(entry)
    return found


def _nearest(entries: Sequence[Entry], candidates: Sequence[tuple[int, Finding]],
             added: Mapping[str, Collection[int]], lines: _FileLines) -> set[int]:
    """Which of the identical `candidates` (index, finding) the `entries` hide: a line the change
    added last; then the finding whose neighbouring lines are the entry's (an identical line added
    elsewhere has other neighbours); then the one nearest the entry's line (at or below it on a
    tie: an edit above moves code down); with no line numbers, in source order (the occurrence)."""
    if len(candidates) <= len(entries):
        return {index for index, _ in candidates}
    if len(candidates) * len(entries) > _MOST_PAIRS:  # thousands of identical lines: no pairing, source order
        order = sorted(candidates, key=lambda pair: (pair[1].location.row in added.get(pair[1].path, ()),
                                                     pair[1].location.row))
        return {index for index, _ in order[:len(entries)]}
    around = {index: lines.neighbours(finding.path, finding.location.row) for index, finding in candidates}
    pairs = sorted(
        (finding.location.row in added.get(finding.path, ()),
         -_matching(entry.neighbours, around[index]),
         abs(finding.location.row - entry.row) if entry.row is not None else 0,
         entry.row is not None and finding.location.row < entry.row, finding.location.row, index, slot)
        for slot, entry in enumerate(entries) for index, finding in candidates)
    hidden: set[int] = set()
    used: set[int] = set()
    for *_, index, slot in pairs:
        if index not in hidden and slot not in used:
            hidden.add(index)
            used.add(slot)
    return hidden


# Above this many (entry, finding) pairs of one line's identical findings, weighing each pair would
# take seconds and gigabytes (a pull request controls both the baseline and the code).
_MOST_PAIRS = 250_000


def _matching(written: tuple[str, str] | None, now: tuple[str, str] | None) -> int:
    """How many of an entry's two neighbours a finding still has (0 when either is unknown)."""
    if written is None or now is None:
        return 0
    return sum(a == b for a, b in zip(written, now, strict=True))


class _FileLines:
    """The lines of the files findings are in, read once each, for their neighbours."""

    def __init__(self) -> None:
        self._lines: dict[str, list[str] | None] = {}

    def neighbours(self, path: str, row: int) -> tuple[str, str] | None:
        """Digests of the nearest non-blank lines above and below `row` ("" past either end);
        None when the file cannot be read now."""
        if path not in self._lines:
            try:
                self._lines[path] = physical_lines(read_source(path))
            except ValueError:
                self._lines[path] = None
        lines = self._lines[path]
        if lines is None or not 0 < row <= len(lines):
            return None
        above = next((lines[i] for i in range(row - 2, -1, -1) if lines[i].strip()), "")
        below = next((lines[i] for i in range(row, len(lines)) if lines[i].strip()), "")
        return _digest(above), _digest(below)


def _digest(line: str) -> str:
    return hashlib.sha256(" ".join(line.split()).encode()).hexdigest()[:8] if line.strip() else ""


def load_baseline(path: Path, content: bytes | None = None) -> Baseline:
    """The baseline at `path`, or in `content` when given (its bytes from elsewhere: a review's base
    commit; `path` still places it); one that is missing or malformed is a configuration error (exit 2)."""
    return Baseline(path, tuple(_entry(entry) for entry in _read_entries(path, content)))


def _read_entries(path: Path, content: bytes | None = None) -> list[dict[str, object]]:
    """The entries of the baseline at `path` (or in `content`) as written, checked as load_baseline says."""
    if content is None and outside_read_root(str(path)):  # the bot: a pull request's symlink out of the workspace
        raise ConfigError(f"baseline {path}: a symlink to a file outside the workspace is never read")
    try:
        data = read_json_file(path, MAX_BASELINE_BYTES) if content is None else json_value(content)
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
    return entries


def _entry(entry: dict[str, object]) -> Entry:
    """An entry as written: one without its fields (made by hand) is matched by its fingerprint.
    Its line is read as its code: older baselines hold the whole line, a comment included."""
    fields = [entry.get(name) for name in ("code", "path", "symbol", "line")]
    identity = (str(fields[0]), str(fields[1]), str(fields[2]), _line_key(str(fields[3]))) \
        if all(isinstance(value, str) for value in fields) else None
    row = entry.get("row")
    above, below = entry.get("above"), entry.get("below")
    return Entry(str(entry["fingerprint"]), identity,
                 row if isinstance(row, int) and not isinstance(row, bool) and row > 0 else None,
                 (above, below) if isinstance(above, str) and isinstance(below, str) else None)


@dataclass(frozen=True)
class Checked:
    """What a run that rewrites the baseline looked at: entries outside it are kept as they are.
    `files`: the files checked (None: the whole project); `folders`: the folders given, whose files
    deleted since are covered too; `codes`: the rules enabled."""

    files: Collection[str] | None
    codes: Collection[str]
    folders: Collection[str] = ()

    def covering(self, root: Path) -> Callable[[Mapping[str, object]], bool]:
        """Whether the run covers an entry of the baseline in folder `root`."""
        files = None if self.files is None else {_relative(path, root) for path in self.files}
        folders = tuple(f"{_relative(folder, root)}/" for folder in self.folders)

        def covers(entry: Mapping[str, object]) -> bool:
            code, file = entry.get("code"), entry.get("path")
            if not isinstance(code, str) or not isinstance(file, str):
                return files is None  # a fingerprint alone (made by hand): only a whole-project run replaces it
            if code not in self.codes:
                return False
            return files is None or file in files or file.startswith(folders)
        return covers


def _relative(path: str, root: Path) -> str:
    return PurePath(os.path.relpath(os.path.abspath(path), root)).as_posix()


def write_baseline(path: Path, findings: Iterable[Finding], checked: Checked | None = None,
                   write_root: str | None = None, configured: bool = False) -> int:
    """Write every finding to `path`, replacing the entries `checked` covers and keeping the others
    (a check of one file or of some rules rewrites only theirs); returns how many entries it holds.
    `write_root` (a real path, the project's) and `configured` (the path came from a configuration
    file, not the command line): see `_refuse_a_foreign_target`."""
    _refuse_a_foreign_target(path, write_root, configured)
    root = path.parent
    lines = _FileLines()
    covers = checked.covering(root) if checked is not None else None
    kept = [entry for entry in _written_entries(path) if not covers(entry)] if covers is not None else []
    entries = sorted(
        [*kept, *(
            {"fingerprint": fingerprint(f, root), "code": code, "path": file, "symbol": symbol, "line": line,
             "row": f.location.row, **_neighbour_fields(lines.neighbours(f.path, f.location.row))}
            for f in findings
            for code, file, symbol, line, _ in [_identity(f, root)]
        )],
        key=_entry_order,
    )
    document = {"comment": HEADER, "version": VERSION, "findings": entries}
    try:  # O_NOFOLLOW: a symlink put there since the check above is refused by the open itself
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as error:
        raise ConfigError(f"baseline {path}: cannot write: {error.strerror}") from None
    with open(handle, "w", encoding="utf-8") as out:
        out.write(json.dumps(document, indent=1) + "\n")
    return len(entries)


def _refuse_a_foreign_target(path: Path, write_root: str | None, configured: bool) -> None:
    """A checkout must not make `--update-baseline` write a file of the user's: the baseline is
    never written through a symlink (review14 #9), its name ends in `.json`, a configuration file
    (the checkout's) names none whose real path is outside the project (review15 #1: `baseline =
    "../.bash_aliases"` created a file the shell runs), and one given on the command line outside
    the project replaces only a graphmend baseline there."""
    if path.suffix != ".json":
        raise ConfigError(f"baseline {path}: a baseline's file name ends in `.json`; it is not written")
    if path.is_symlink():
        raise ConfigError(f"baseline {path} is a symlink: it is never written through (replace it with the file)")
    if write_root is None or not outside(str(path), write_root):
        return
    if configured:
        raise ConfigError(f"baseline {path} is outside the project: a configuration file's `baseline` is written "
                          "only inside it (`--baseline FILE` writes one elsewhere)")
    if path.exists():
        try:
            _read_entries(path)
        except ConfigError:
            raise ConfigError(f"baseline {path} is outside the project and not a graphmend baseline: "
                              "it is left alone") from None


def _entry_order(entry: Mapping[str, object]) -> tuple[str, str, str, str, int, str]:
    row = entry.get("row")
    path, code, symbol, line, fingerprint_ = (str(entry.get(name, "")) for name in
                                              ("path", "code", "symbol", "line", "fingerprint"))
    return path, code, symbol, line, row if isinstance(row, int) else 0, fingerprint_


def _written_entries(path: Path) -> list[dict[str, object]]:
    """The entries of the baseline at `path` as written; none when there is no baseline yet."""
    return _read_entries(path) if path.exists() else []  # a malformed one is an error, never dropped


def _neighbour_fields(neighbours: tuple[str, str] | None) -> dict[str, str]:
    return {"above": neighbours[0], "below": neighbours[1]} if neighbours is not None else {}


def without_baselined(result: CheckResult, config: Config,
                      added: Mapping[str, Collection[int]] | None = None) -> CheckResult:
    """`result` less the findings the configured baseline holds (the result itself when none is);
    `added`: the lines a change added, by path (Baseline.split)."""
    path = baseline_path(config)
    if path is None:
        return result
    findings, hidden = load_baseline(path, config.baseline_bytes).split(result.findings, added)
    return replace(result, findings=findings, baselined=result.baselined + hidden)
