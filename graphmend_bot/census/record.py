"""The census file: what Dynamo said about the code a project's tests ran.

It is written by the pytest plugin inside the project's own test environment and read back by
`graphmend check --census` and the bot. Read back, it is untrusted input (in the Action it is an
artifact a pull request's tests produced): `load_census` validates every field, bounds every list
and accepts only relative paths inside the repository, and never evaluates anything.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from graphmend_bot.json_files import JsonFileError, read_json_file

VERSION = 1
FORMAT = "graphmend-census"
MAX_BYTES = 64 * 1024 * 1024
MAX_CALLS = 20_000
MAX_BREAKS = 20_000
MAX_EXECUTED_LINES = 2_000_000
MAX_TEXT = 500
MAX_TESTS_PER_BREAK = 5
MAX_CHANGED_FILES = 20_000
_GB_ID = re.compile(r"GB[0-9]{4}")  # not \d, which is any Unicode digit
_SHA = re.compile(r"[0-9a-f]{7,64}")


def is_commit(text: str) -> bool:
    """A hexadecimal commit id (abbreviated or whole, SHA-1 or SHA-256), lower case."""
    return bool(_SHA.fullmatch(text))


class CensusError(ValueError):
    """The census file is missing, malformed, hostile or for another commit; the message says which."""


@dataclass
class CallRecord:
    """One censused call: the first call of an outermost module or entry point per input signature."""

    target: str  # "pkg.models.Net" or "pkg.serving:predict"
    test: str  # the pytest node id that made the call
    graph_count: int = 0
    graph_break_count: int = 0
    error: str = ""  # why explain could not handle it ("" when it did)
    seconds: float = 0.0  # what explaining it cost (copy, clones, explain): where a census's time goes
    recompiles: int = 0  # frames Dynamo compiled again because a guard failed
    fallbacks: int = 0  # frames Dynamo gave up on and ran eagerly


@dataclass
class BreakRecord:
    path: str  # relative to the repository root, "/"-separated
    line: int
    reason: str  # Dynamo's one-line reason
    gb_id: str  # "GB0170", or "" when Dynamo gave none
    tests: list[str] = field(default_factory=list)  # node ids that showed it, first first
    function: str = ""  # the qualified name of the function it is in ("" at module level or unknown)
    source: str = ""  # its line's text, whitespace normalised (fingerprint.py)

    @property
    def test(self) -> str:
        return self.tests[0] if self.tests else ""


@dataclass
class Census:
    commit: str = ""  # the commit the tests ran on ("" when unknown)
    torch: str = ""
    calls: list[CallRecord] = field(default_factory=list)
    breaks: list[BreakRecord] = field(default_factory=list)
    executed: dict[str, list[int]] = field(default_factory=dict)  # lines the censused calls ran
    coverage: bool = True  # False when another tracer (coverage.py) owned sys.settrace
    # False in the copy written after each test that explained a call: the run has not finished. Left
    # so, the tests stopped early (a crash killed pytest) and the census holds what ran before.
    complete: bool = True
    # A partial census (pull-request mode, `--graphmend-census-changed-since`): only calls that reached
    # one of `changed_files` were explained; the base census of commit `changed_since` holds the rest
    # (reuse.py merges the two). "" for a whole census.
    changed_since: str = ""
    changed_files: list[str] = field(default_factory=list)

    @property
    def partial(self) -> bool:
        return bool(self.changed_since)

    def break_at(self, path: str, line: int) -> BreakRecord | None:
        return self._breaks_by_line.get((path, line))

    def ran(self, path: str, line: int) -> bool:
        return line in self._executed_sets.get(path, ())

    @cached_property
    def _breaks_by_line(self) -> dict[tuple[str, int], BreakRecord]:
        return {(b.path, b.line): b for b in self.breaks}

    @cached_property
    def _executed_sets(self) -> dict[str, set[int]]:
        return {path: set(lines) for path, lines in self.executed.items()}

    def to_json(self) -> str:
        data = {"format": FORMAT, "version": VERSION, **asdict(self)}
        return json.dumps(data, indent=1, sort_keys=False) + "\n"


def write_census(census: Census, path: Path) -> None:
    """Atomically: a half-written census must never be read as a whole one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(census.to_json(), encoding="utf-8")
    os.replace(partial, path)


# -- reading it back (untrusted) -------------------------------------------------------------------
def load_census(path: Path, expected_commit: str = "") -> Census:
    """The census at `path`, validated; CensusError when it cannot be used.

    `expected_commit`: when given, a census recorded on another commit is refused (its lines would
    point at other code).
    """
    try:
        data = read_json_file(path, MAX_BYTES)
    except JsonFileError as error:
        raise CensusError(f"no census file at {path}" if error.missing else f"the census {path.name} is {error}") from None
    census = parse_census(data)
    if expected_commit and census.commit and census.commit != expected_commit.lower():
        raise CensusError(f"the census was recorded on commit {census.commit[:12]}, not {expected_commit[:12]}: "
                          "its lines may point at other code, so it is not used")
    if expected_commit and not census.commit:
        raise CensusError("the census does not say which commit it was recorded on, so it is not used")
    return census


def parse_census(data: Any) -> Census:
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != VERSION:
        raise CensusError(f"not a version {VERSION} {FORMAT} file")
    commit = printable_text(data.get("commit", ""), "commit", 64).lower()
    if commit and not _SHA.fullmatch(commit):
        raise CensusError("commit must be a hexadecimal commit id")
    calls = [_call(item, i) for i, item in enumerate(bounded_list(data.get("calls"), "calls", MAX_CALLS))]
    breaks = parse_breaks(data.get("breaks"), "breaks")
    executed = _executed(data.get("executed", {}))
    coverage = data.get("coverage", True)
    complete = data.get("complete", True)
    if not isinstance(coverage, bool) or not isinstance(complete, bool):
        raise CensusError("coverage and complete must be true or false")
    changed_since = printable_text(data.get("changed_since", ""), "changed_since", 64).lower()
    if changed_since and not _SHA.fullmatch(changed_since):
        raise CensusError("changed_since must be a hexadecimal commit id")
    changed_files = [relative_path(path, "changed_files path")
                     for path in bounded_list(data.get("changed_files", []), "changed_files", MAX_CHANGED_FILES)]
    return Census(commit, printable_text(data.get("torch", ""), "torch", 40), calls, breaks, executed, coverage, complete,
                  changed_since, changed_files)


def bounded_list(value: Any, name: str, limit: int) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > limit:
        raise CensusError(f"{name} must be a list of at most {limit}")
    return value


def printable_text(value: Any, name: str, limit: int = MAX_TEXT) -> str:
    if not isinstance(value, str):
        raise CensusError(f"{name} must be a string")
    return "".join(ch for ch in value[:limit] if ch.isprintable())


def whole_number(value: Any, name: str, low: int = 0, high: int = 10_000_000) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value < high:
        raise CensusError(f"{name} must be a whole number from {low}")
    return value


def relative_path(value: Any, name: str) -> str:
    """A "/"-separated path inside the repository: no absolute path, no `..`, no drive."""
    text = printable_text(value, name, 1000)
    normal = posixpath.normpath(text)
    if (not text or text.startswith(("/", "\\")) or "\\" in text or ":" in text or normal.startswith("..")
            or normal != text.removeprefix("./")):
        raise CensusError(f"{name} must be a relative path inside the repository, got {text[:80]!r}")
    return normal


def _call(item: Any, index: int) -> CallRecord:
    name = f"calls[{index}]"
    if not isinstance(item, dict):
        raise CensusError(f"{name} must be an object")
    return CallRecord(printable_text(item.get("target"), f"{name}.target"), printable_text(item.get("test", ""), f"{name}.test"),
                      whole_number(item.get("graph_count", 0), f"{name}.graph_count"),
                      whole_number(item.get("graph_break_count", 0), f"{name}.graph_break_count"),
                      printable_text(item.get("error", ""), f"{name}.error"), _seconds(item.get("seconds", 0.0), name),
                      whole_number(item.get("recompiles", 0), f"{name}.recompiles"),
                      whole_number(item.get("fallbacks", 0), f"{name}.fallbacks"))


def _seconds(value: Any, name: str) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value < 1e6:
        raise CensusError(f"{name}.seconds must be a number of seconds")
    return float(value)


def parse_breaks(value: Any, name: str, limit: int = MAX_BREAKS) -> list[BreakRecord]:
    """A list of break records, each validated as the census file's are (also a comparison's lists,
    which a fork's review bundle carries); CensusError naming the first bad field."""
    return [_break(item, f"{name}[{index}]") for index, item in enumerate(bounded_list(value, name, limit))]


def _break(item: Any, name: str) -> BreakRecord:
    if not isinstance(item, dict):
        raise CensusError(f"{name} must be an object")
    gb_id = printable_text(item.get("gb_id", ""), f"{name}.gb_id", 10)
    if gb_id and not _GB_ID.fullmatch(gb_id):
        raise CensusError(f"{name}.gb_id must look like GB0170")
    tests = [printable_text(t, f"{name}.tests") for t in bounded_list(item.get("tests", []), f"{name}.tests", MAX_TESTS_PER_BREAK)]
    return BreakRecord(relative_path(item.get("path"), f"{name}.path"), whole_number(item.get("line"), f"{name}.line", 1),
                       printable_text(item.get("reason"), f"{name}.reason"), gb_id, tests,
                       printable_text(item.get("function", ""), f"{name}.function"),
                       printable_text(item.get("source", ""), f"{name}.source"))


def _executed(value: Any) -> dict[str, list[int]]:
    if not isinstance(value, dict):
        raise CensusError("executed must be an object of path -> lines")
    total = 0
    executed: dict[str, list[int]] = {}
    for raw_path, lines in value.items():
        path = relative_path(raw_path, "executed path")
        checked = [whole_number(line, f"executed[{path}] line", 1) for line in bounded_list(lines, f"executed[{path}]",
                                                                             MAX_EXECUTED_LINES)]
        total += len(checked)
        if total > MAX_EXECUTED_LINES:
            raise CensusError(f"executed lists more than {MAX_EXECUTED_LINES} lines")
        executed[path] = checked
    return executed
