"""A persistent cache of per-file text scans and summaries, and of whole-project results.

A one-file check analyses its whole project (project.py), so on a large tree most of the work is
summarising files that did not change since the last run. As ruff's `.ruff_cache`, the cache is a
folder at the project root (`.graphmend_cache/`, with a CACHEDIR.TAG and a `.gitignore` of `*`),
or `GRAPHMEND_CACHE_DIR`; `--no-cache` turns it off.

Every entry is keyed by what its value depends on, so an entry is never stale, only unused:
- a scan: the sha256 of the file's text, its module name and whether it is a package;
- a summary: the same, whether the config names dependencies (the only setting summaries read)
  and the state of the installed-packages folders (installed_packages.installed_state: GM650-GM652
  judge calls by the installed packages' files; a summary made while an installed compiled
  module could not be read is not stored, nor the result of a tree with one, engine.py); it also
  names the other files whose text it read (guard helpers, ModuleSummary.read_files), and is used
  only while they hold that text (engine.Workspace._reads_unchanged);
- a project's result: the key of every file analysed (path, module, text), the errors of the walk,
  the whole configuration and the installed packages' state;
- a project's solved state (analysis/incremental.py): the same without the texts, one per project,
  replaced by each solve; it names the texts it was solved for, and is used only for those;
and all of them: graphmend's version and a hash of its own source (`code_fingerprint`), so a
development checkout never reads what an older analysis wrote.

The cache is data, wherever it comes from (a folder committed in a pull request, a CI cache): it
is JSON, decoded by summary_codec.py with every value's type checked, never pickle, which would
run code. An entry that cannot be read, is not JSON, has another key or a wrong shape is ignored
and recomputed; the worst a forged entry can do is change the findings of the text it is keyed
by, and the CLI's cache refuses even that: its entries carry an HMAC under the user's key
(cache_trust.py), and one that does not verify is recomputed. Writing never fails a run: a cache
that cannot be written is skipped.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import tempfile
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any, cast

from graphmend_bot import __version__
from graphmend_bot.analysis import python_target
from graphmend_bot.analysis.added_calls import AddedCall, on_added_row
from graphmend_bot.analysis.files import SourceFile
from graphmend_bot.analysis.incremental import SolvedState
from graphmend_bot.analysis.installed_packages import installed_state
from graphmend_bot.analysis.model import ModuleSummary
from graphmend_bot.analysis.prefilter import FileScan
from graphmend_bot.analysis.rebound_names import Redirects
from graphmend_bot.analysis.scope import FunctionId
from graphmend_bot.analysis.summary_codec import CodecError, decode_entry, encode_entry
from graphmend_bot.config import Config
from graphmend_bot.findings import SEVERITIES, CheckResult, FileError, Finding, Location, Severity

CACHE_DIR_VARIABLE = "GRAPHMEND_CACHE_DIR"
CACHE_DIR_NAME = ".graphmend_cache"
MAX_ENTRY_BYTES = 64 * 1024 * 1024  # a summary of a 5 MiB file is far below this
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
_TAG = ("Signature: 8a477f597d28d172789f06886806bc55\n"
        "# This file is a cache directory tag created by graphmend.\n"
        "# For information about cache directory tags see https://bford.info/cachedir/\n")


@dataclass(frozen=True)
class _StoredFinding:
    code: str
    message: str
    path: str
    row: int
    column: int
    end_row: int
    end_column: int
    gb_id: str
    symbol: str
    source_line: str
    occurrence: int
    rare: bool
    reached_through: str = ""
    unproven_parameters: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class _StoredResult:
    findings: tuple[_StoredFinding, ...]
    errors: tuple[tuple[str, str, str], ...]  # (path, message, severity)
    files_checked: int


@dataclass(frozen=True)
class _StoredReach:
    # (module, qualname) brought into traced code, (path, row, module, qualname, call_row) of the call that does
    calls: tuple[tuple[str, str, str, int, str, str, int], ...]


@cache
def code_fingerprint() -> str:
    """graphmend's version and the hash of its Python source: what the cached values were made by."""
    digest = hashlib.sha256(__version__.encode())
    package = Path(__file__).resolve().parent.parent
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _key(*parts: object) -> str:
    """The key of a whole project's entry: what made it, the installed packages it judged by, `parts`."""
    return hashlib.sha256(json.dumps([code_fingerprint(), installed_state(), *parts]).encode()).hexdigest()


def _settings(config: Config) -> str:
    # `verify` steers `graphmend verify` only, never a finding (and is the one free-form table)
    settings: dict[str, object] = {name: value for name, value in asdict(config).items()
                                   if name not in ("source", "baseline_bytes", "verify")}
    if config.baseline_bytes is not None:
        settings["baseline_bytes"] = hashlib.sha256(config.baseline_bytes).hexdigest()
    return json.dumps(settings, sort_keys=True, default=str)


def _file_key(kind: str, digest: str, module: str, *flags: bool, installed: str = "") -> str:
    """`_key` of a file's entry, without a JSON document per file (thousands per run): the parts
    joined by NUL, which no module name or hex digest holds, and the flags as 0/1."""
    text = "\0".join((code_fingerprint(), kind, digest, module, installed, *("1" if flag else "0" for flag in flags)))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class SummaryCache:
    """Entries under `directory` (created on first write); picklable, so workers store what they compute.

    With a `signing_key`, each entry file is its HMAC-SHA256 under that key in hex, a newline, then
    its JSON, and an entry whose HMAC does not verify is not read. Without one, an entry is its JSON
    alone, not authenticated (the Action's `cache-dir`: only default-branch runs save it, and a pull
    request's run reads less of it, github/review/pull_request_cache.py)."""

    def __init__(self, directory: Path, signing_key: bytes | None = None) -> None:
        self.directory = Path(directory)
        self._signing_key = signing_key
        self._folder = str(self.directory)
        self._linked: bool | None = None  # whether the folder is a symlink, once looked at

    # ---- keys ----------------------------------------------------------------------------
    # scan_key and summary_key are methods, not static: a pull request's cache notes whose they are
    # (github/review/pull_request_cache.py)
    def scan_key(self, digest: str, source_file: SourceFile) -> str:
        return _file_key("scan", digest, source_file.module, source_file.is_package)

    def summary_key(self, digest: str, source_file: SourceFile, dependency_calls: bool) -> str:
        return _file_key("summary", digest, source_file.module, source_file.is_package, dependency_calls,
                         *python_target.judged_as(), installed=installed_state())

    @staticmethod
    def result_key(file_keys: Sequence[tuple[str, str]], walk_errors: Iterable[FileError], config: Config,
                   roots: Sequence[str]) -> str:
        return _key("result", sorted(file_keys), sorted((e.path, e.message) for e in walk_errors),
                    _settings(config), list(roots))

    @staticmethod
    def state_key(files: Sequence[SourceFile], walk_errors: Iterable[FileError], config: Config,
                  roots: Sequence[str]) -> str:
        """The slot of a project's solved state (analysis/incremental.py): its files by path and
        module but not by text, which the state holds and is checked against on use."""
        return _key("state", sorted((f.path, f.module, f.is_package) for f in files),
                    sorted((e.path, e.message) for e in walk_errors), _settings(config), list(roots))

    @staticmethod
    def base_key(result_key: str, head_key: str) -> str:
        """The key of a review's base result (engine.Workspace.revert: the texts of `result_key`
        in the head's tree of `head_key`), never a solve of those texts' own tree."""
        return _key("base", result_key, head_key)

    @staticmethod
    def reach_key(result_key: str, added: Mapping[str, Collection[int]],
                  replaced: Mapping[str, Mapping[int, Collection[str]]],
                  rebound: Mapping[str, Redirects]) -> str:
        """The key of what a change's added calls bring into the traced code of the result `result_key`."""
        return _key("reach", result_key, sorted((path, sorted(rows)) for path, rows in added.items()),
                    sorted((path, sorted((row, sorted(names)) for row, names in rows.items()))
                           for path, rows in replaced.items()),
                    sorted((path, sorted(redirects.items())) for path, redirects in rebound.items()))

    # ---- values --------------------------------------------------------------------------
    def load_scan(self, key: str) -> FileScan | None:
        value = self._load("scan", key, FileScan)
        return value if isinstance(value, FileScan) else None

    def load_summary(self, key: str, path: str) -> ModuleSummary | None:
        value = self._load("summary", key, ModuleSummary)
        if not isinstance(value, ModuleSummary):
            return None
        value.path = path  # the one field that is not a function of the key: where the file is now
        return value

    def load_result(self, key: str) -> CheckResult | None:
        stored = self._load("result", key, _StoredResult)
        if not isinstance(stored, _StoredResult):
            return None
        findings = [
            Finding(code=f.code, message=f.message, path=f.path, location=Location(f.row, f.column),
                    end_location=Location(f.end_row, f.end_column), gb_id=f.gb_id, symbol=f.symbol,
                    source_line=f.source_line, occurrence=f.occurrence,
                    frequency="rare-branch" if f.rare else "every-call", reached_through=f.reached_through,
                    unproven_parameters=f.unproven_parameters)
            for f in stored.findings
        ]
        if any(severity not in SEVERITIES for _, _, severity in stored.errors):
            return None
        return CheckResult(findings, [FileError(path, message, cast(Severity, severity))
                                      for path, message, severity in stored.errors], stored.files_checked)

    def load_reach(self, key: str, added: Mapping[str, Collection[int]]) -> dict[FunctionId, AddedCall] | None:
        """The stored reach, each call on an `added` line (a forged entry can only blame an added call)."""
        stored = self._load("reach", key, _StoredReach)
        if not isinstance(stored, _StoredReach):
            return None
        reach = {(module, qualname): AddedCall(path, row, (caller_module, caller), call_row)
                 for module, qualname, path, row, caller_module, caller, call_row in stored.calls}
        return reach if all(on_added_row(call.path, call.row, added) for call in reach.values()) else None

    def store_reach(self, key: str, reach: Mapping[FunctionId, AddedCall]) -> None:
        stored = _StoredReach(tuple((module, qualname, call.path, call.row, *call.caller, call.call_row)
                                    for (module, qualname), call in reach.items()))
        self._store("reach", key, _StoredReach, stored)

    def load_state(self, key: str) -> SolvedState | None:
        value = self._load("state", key, SolvedState)
        return value if isinstance(value, SolvedState) else None

    def store_state(self, key: str, state: SolvedState) -> None:
        self._store("state", key, SolvedState, state)

    def store_scan(self, key: str, scan: FileScan) -> None:
        self._store("scan", key, FileScan, scan)

    def holds_summary(self, key: str) -> bool:
        """Whether a summary was stored under `key` (by this process or a worker)."""
        return self._path("summary", key).is_file()

    def store_summary(self, key: str, summary: ModuleSummary) -> None:
        self._store("summary", key, ModuleSummary, summary)

    def store_result(self, key: str, result: CheckResult) -> None:
        if any(f.fix is not None or f.evidence is not None for f in result.findings):
            return  # only what the engine computes; fixes and census evidence are added later
        stored = _StoredResult(
            tuple(_StoredFinding(f.code, f.message, f.path, f.location.row, f.location.column, f.end_location.row,
                                 f.end_location.column, f.gb_id, f.symbol, f.source_line, f.occurrence, f.rare,
                                 f.reached_through, f.unproven_parameters)
                  for f in result.findings),
            tuple((e.path, e.message, e.severity) for e in result.errors), result.files_checked)
        self._store("result", key, _StoredResult, stored)

    # ---- files ---------------------------------------------------------------------------
    def _path(self, kind: str, key: str) -> Path:
        return self.directory / kind / key[:2] / f"{key}.json"

    def _load(self, kind: str, key: str, annotation: Any) -> Any:
        try:
            if self._linked is None:  # the folder is looked at once per run, not once per entry
                self._linked = self.directory.is_symlink()
            if self._linked:
                return None
            # O_NOFOLLOW: an entry that is a symlink is refused by the open itself (ELOOP).
            handle = os.open(f"{self._folder}/{kind}/{key[:2]}/{key}.json", _READ_FLAGS)
            with open(handle, "rb") as entry_file:
                data = entry_file.read(MAX_ENTRY_BYTES + 1)
            if len(data) > MAX_ENTRY_BYTES:
                return None
            if self._signing_key is not None:
                signature, _, data = data.partition(b"\n")
                if not hmac.compare_digest(signature, self._signature(self._signing_key, data)):
                    return None  # not written with this user's key: copied, committed or edited
            entry = json.loads(data)
            if type(entry) is not dict or entry.get("key") != key:
                return None
            return decode_entry(annotation, entry.get("entry"))
        except (OSError, ValueError, CodecError, TypeError, RecursionError):
            return None  # unreadable or not ours: recompute

    def _store(self, kind: str, key: str, annotation: Any, value: Any) -> None:
        try:
            data = json.dumps({"key": key, "entry": encode_entry(annotation, value)}, separators=(",", ":")).encode()
            self._prepare()
            folder = self._path(kind, key).parent
            folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=folder, suffix=".tmp")
            try:
                with os.fdopen(handle, "wb") as out:
                    if self._signing_key is not None:
                        out.write(self._signature(self._signing_key, data) + b"\n")
                    out.write(data)
                os.replace(temporary, self._path(kind, key))  # readers never see half an entry
            except BaseException:
                os.unlink(temporary)
                raise
        except (OSError, ValueError, TypeError):
            return

    @staticmethod
    def _signature(key: bytes, data: bytes) -> bytes:
        return hmac.digest(key, data, "sha256").hex().encode()  # one C call: no HMAC object per entry

    def _prepare(self) -> None:
        if self.directory.is_symlink():
            raise OSError("the cache folder is a symlink")  # never follow one out of the project
        if (self.directory / "CACHEDIR.TAG").exists():
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        (self.directory / ".gitignore").write_text("# Automatically created by graphmend.\n*\n", encoding="utf-8")
        (self.directory / "CACHEDIR.TAG").write_text(_TAG, encoding="utf-8")
