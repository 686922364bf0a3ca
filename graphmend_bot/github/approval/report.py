"""The measured report, read as untrusted input.

It comes back from the GPU runner, where the pull request's code ran and could have written
anything. Before a single field is used it must be JSON of the shape `graphmend verify --json`
writes, within size limits; otherwise `load_report` says what is wrong and nothing is decided.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

MAX_BYTES = 4 * 1024 * 1024
MAX_ENTRY_POINTS = 200
MAX_TEXT = 4000  # characters in any one string shown in the review
Check = Callable[[Any], bool]


def _text(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= MAX_TEXT


def _optional(check: Check) -> Check:
    return lambda value: value is None or check(value)


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**31


def _break_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -1 <= value < 2**31


def _number(value: Any) -> bool:
    return (isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
            and value >= 0)


def _texts(value: Any) -> bool:
    return isinstance(value, list) and len(value) <= 100 and all(_text(item) for item in value)


ARM_FIELDS: dict[str, Check] = {
    "ok": lambda value: isinstance(value, bool),
    "error": _optional(_text),
    "device": _optional(_text),
    "graph_count": _optional(_integer),
    # explain() counts graph_count - 1 breaks: -1 when it captured no graph (verify/protocol.py).
    "graph_break_count": _optional(_break_count),
    "cold_start_s": _optional(_number),
    "steady_state_s": _optional(_number),
}
ENTRY_FIELDS: dict[str, Check] = {
    "name": _text,
    "outputs_equal": _optional(lambda value: isinstance(value, bool)),
    "verdict": _text,
    "reasons": _texts,
    "cold_start_speedup": _optional(_number),
    "steady_state_speedup": _optional(_number),
}


def load_report(path: Path) -> tuple[dict[str, Any] | None, str]:
    """(the report, "") or (None, why it cannot be used)."""
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            return None, f"the verify report is {size} bytes, more than the {MAX_BYTES} allowed"
        data = json.loads(path.read_bytes().decode("utf-8"))
    except FileNotFoundError:
        return None, f"no verify report at {path}"
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        return None, f"the verify report is not valid JSON: {type(error).__name__}: {str(error)[:200]}"
    problems = report_problems(data)
    if problems:
        return None, "the verify report is malformed: " + "; ".join(problems[:3])
    return data, ""


def report_problems(data: Any) -> list[str]:
    """Every way `data` departs from the shape of `graphmend verify --json` (empty when it fits)."""
    if not isinstance(data, dict):
        return [f"expected an object, got {type(data).__name__}"]
    problems: list[str] = []
    for side in ("original", "rewritten"):
        source = data.get(side)
        if not isinstance(source, dict) or not _text(source.get("label")):
            problems.append(f"`{side}` must be an object with a text `label`")
    entries = data.get("entry_points")
    if not isinstance(entries, list) or len(entries) > MAX_ENTRY_POINTS:
        return [*problems, f"`entry_points` must be a list of at most {MAX_ENTRY_POINTS} entry points"]
    for index, entry in enumerate(entries):
        problems += _entry_problems(index, entry)
    return problems


def _entry_problems(index: int, entry: Any) -> list[str]:
    where = f"entry point {index}"
    if not isinstance(entry, dict):
        return [f"{where} is not an object"]
    problems = [f"{where}: `{key}` has the wrong type or size" for key, check in ENTRY_FIELDS.items()
                if not check(entry.get(key))]
    for arm in ("original", "rewritten"):
        data = entry.get(arm)
        if not isinstance(data, dict):
            problems.append(f"{where}: `{arm}` is not an object")
            continue
        problems += [f"{where}: `{arm}.{key}` has the wrong type or size" for key, check in ARM_FIELDS.items()
                     if not check(data.get(key))]
    return problems
