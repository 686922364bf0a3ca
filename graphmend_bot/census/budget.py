"""The graph-break budget: the breaks a repository expects its census to show, committed beside its code.

PyTorch gates its CI on the expected graph-break counts of `benchmarks/dynamo/ci_expected_accuracy/*.csv`
(`check_graph_breaks.py`); `graphmend-breaks.json` is that file for a project's census, one entry per
expected break, fingerprinted as the census comparison matches breaks (fingerprint.py: file, graph-break
id, function, line text, occurrence; never the line number), so code moving under a break keeps it
budgeted. A break the budget holds is not "new" for `fail-on: new-breaks`.

The gate reads the budget from the base commit's tree only: a pull request must not raise its own
budget. `graphmend census --update-budget` and `/graphmend accept-breaks` write it. Read back it is
untrusted (a pull request may change the file for the next run): validated like a census, size- and
count-capped, and only ever allows breaks (it never hides a failed compile).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphmend_bot.census.fingerprint import Fingerprint, fingerprints
from graphmend_bot.census.record import MAX_BREAKS, BreakRecord, Census, CensusError, relative_path
from graphmend_bot.json_files import JsonFileError, read_json_file

BUDGET_FILE = "graphmend-breaks.json"
FORMAT = "graphmend-breaks"
VERSION = 1
MAX_BUDGET_BYTES = 8 * 1024 * 1024
MAX_TEXT = 500
HEADER = ("graph breaks this repository expects its census to show; `graphmend census --update-budget` or "
          "`/graphmend accept-breaks` rewrites it")


@dataclass(frozen=True)
class Budget:
    expected: frozenset[Fingerprint]

    def holds(self, key: Fingerprint) -> bool:
        return key in self.expected

    def __len__(self) -> int:
        return len(self.expected)


def budget_from(breaks: Iterable[BreakRecord]) -> str:
    """The budget file's text for these breaks: sorted, one entry per break, line and reason for the
    reader (the fingerprint alone decides), so its diff in a pull request says what was accepted."""
    entries = [{"path": key.path, "kind": key.kind, "function": key.function, "source": key.source,
                "occurrence": key.occurrence, "line": record.line, "reason": record.reason}
               for key, record in sorted(fingerprints(breaks).items())]
    return json.dumps({"format": FORMAT, "version": VERSION, "comment": HEADER, "breaks": entries}, indent=1) + "\n"


def write_budget(census: Census, path: Path) -> int:
    """Write the census's breaks as the budget at `path`; how many it holds."""
    path.write_text(budget_from(census.breaks), encoding="utf-8")
    return len(census.breaks)


def load_budget(path: Path) -> Budget:
    """The budget at `path`; CensusError (its message says why) when it cannot be used."""
    try:
        data = read_json_file(path, MAX_BUDGET_BYTES)
    except JsonFileError as error:
        raise CensusError(f"no budget file at {path}" if error.missing else f"the budget {path.name} is {error}") from None
    return parse_budget(data)


def parse_budget_bytes(data: bytes) -> Budget:
    """A budget read from a commit (the contents API): the same checks as a file."""
    if len(data) > MAX_BUDGET_BYTES:
        raise CensusError(f"the budget {BUDGET_FILE} is larger than {MAX_BUDGET_BYTES >> 20} MiB")
    try:
        return parse_budget(json.loads(data.decode("utf-8")))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise CensusError(f"the budget {BUDGET_FILE} is unreadable: {error}") from None


def parse_budget(data: Any) -> Budget:
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != VERSION:
        raise CensusError(f"{BUDGET_FILE} is not a version {VERSION} {FORMAT} file")
    entries = data.get("breaks", [])
    if not isinstance(entries, list) or len(entries) > MAX_BREAKS:
        raise CensusError(f"{BUDGET_FILE}: breaks must be a list of at most {MAX_BREAKS}")
    return Budget(frozenset(_entry(item, i) for i, item in enumerate(entries)))


def _entry(item: Any, index: int) -> Fingerprint:
    name = f"{BUDGET_FILE}: breaks[{index}]"
    if not isinstance(item, dict):
        raise CensusError(f"{name} must be an object")
    texts = [item.get(key, "") for key in ("kind", "function", "source")]
    occurrence = item.get("occurrence", 0)
    if not all(isinstance(t, str) and len(t) <= MAX_TEXT for t in texts):
        raise CensusError(f"{name}: kind, function and source must be strings of at most {MAX_TEXT} characters")
    if not isinstance(occurrence, int) or isinstance(occurrence, bool) or not 0 <= occurrence < MAX_BREAKS:
        raise CensusError(f"{name}.occurrence must be a whole number from 0")
    # The census reader keeps printable characters only; the budget's text must compare equal to it.
    kind, function, source = ("".join(ch for ch in t if ch.isprintable()) for t in texts)
    return Fingerprint(relative_path(item.get("path"), f"{name}.path"), kind, function, source, occurrence)
