"""fp_causes.py puts each executed false positive of a wild run in one class by whether Dynamo traced
its statement, and prints the test half by class and rule code only, never its lines."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks" / "wild"))

from fp_causes import EAGER_ONLY, NOT_RECORDED, TRACED, classify, count
from split import DEV, TEST, half


def _unit(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "calls": [{"name": "forward", "error": None}, {"name": "broken", "error": "ValueError: no"}],
        "false_positives": [
            {"where": "pkg/a.py:10", "text": "if x.sum() > 0:", "note": "GM101 `if` condition depends on tensor values"},
            {"where": "pkg/a.py:20", "text": "y = x.item()", "note": "GM301 `.item()` copies a tensor value to Python"},
            {"where": "pkg/b.py:5", "text": "if t.any():",
             "note": "GM101 `if` condition depends on tensor values (in training mode)"},
        ],
    }


def test_each_false_positive_is_traced_or_eager_only() -> None:
    traced = {"traced": {"pkg/a.py": [10], "pkg/b.py": [5]}, "failed": ["broken: ValueError"]}
    assert classify(_unit("u"), traced) == [(TRACED, "GM101", False), (EAGER_ONLY, "GM301", False),
                                            (TRACED, "GM101", True)]


def test_a_unit_without_a_record_or_with_a_lost_call_is_not_recorded() -> None:
    assert {c for c, _, _ in classify(_unit("u"), None)} == {NOT_RECORDED}
    lost = {"traced": {"pkg/a.py": [10]}, "failed": ["forward: RuntimeError"]}  # ran when the truth was recorded
    assert {c for c, _, _ in classify(_unit("u"), lost)} == {NOT_RECORDED}


def _named(which: str) -> str:
    return next(f"lib{i}" for i in range(1000) if half(f"lib{i}") == which)


def test_the_count_prints_classes_and_codes_never_lines(tmp_path: Path) -> None:
    dev, test = _named(DEV), _named(TEST)
    results, traced = tmp_path / "results.json", tmp_path / "traced.json"
    results.write_text(json.dumps([_unit(dev), _unit(test)]))
    record = {"traced": {"pkg/a.py": [10], "pkg/b.py": [5]}, "failed": []}
    traced.write_text(json.dumps({dev: record, test: record}))
    printed = count(str(results), str(traced))
    assert f"{DEV} half: 3 executed false positives" in printed
    assert f"{TEST} half: 3 executed false positives" in printed
    assert "traced: 1 (GM101 1)" in printed and "traced, mode named: 1 (GM101 1)" in printed
    assert "eager only: 1 (GM301 1)" in printed
    assert "pkg/" not in printed and "x.sum()" not in printed
