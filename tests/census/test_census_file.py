"""A census read back is untrusted: hostile or malformed files are refused with a clear message."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graphmend_bot.census.record import BreakRecord, Census, CensusError, load_census, write_census

SHA = "a" * 40


def census_file(tmp_path: Path, **changes: Any) -> Path:
    census = Census(commit=SHA, torch="2.13.0",
                    breaks=[BreakRecord("pkg/model.py", 3, "Data-dependent branching", "GB0170", ["t::x"])],
                    executed={"pkg/model.py": [1, 2, 3]})
    data = json.loads(census.to_json())
    data.update(changes)
    path = tmp_path / "census.json"
    path.write_text(json.dumps(data))
    return path


def test_round_trip(tmp_path: Path) -> None:
    census = load_census(census_file(tmp_path), expected_commit=SHA)
    assert census.break_at("pkg/model.py", 3) is not None and census.ran("pkg/model.py", 2)
    written = tmp_path / "out" / "again.json"
    write_census(census, written)
    assert load_census(written) == census


@pytest.mark.parametrize(("changes", "message"), [
    ({"breaks": [{"path": "/etc/passwd", "line": 1, "reason": "r", "gb_id": ""}]}, "relative path"),
    ({"breaks": [{"path": "../outside.py", "line": 1, "reason": "r", "gb_id": ""}]}, "relative path"),
    ({"breaks": [{"path": "a/../../b.py", "line": 1, "reason": "r", "gb_id": ""}]}, "relative path"),
    ({"breaks": [{"path": "C:\\x.py", "line": 1, "reason": "r", "gb_id": ""}]}, "relative path"),
    ({"breaks": [{"path": "a.py", "line": 0, "reason": "r", "gb_id": ""}]}, "whole number"),
    ({"breaks": [{"path": "a.py", "line": True, "reason": "r", "gb_id": ""}]}, "whole number"),
    ({"breaks": [{"path": "a.py", "line": 1, "reason": "r", "gb_id": "<script>"}]}, "GB0170"),
    ({"breaks": "many"}, "must be a list"),
    ({"breaks": [{}] * 20_001}, "at most"),
    ({"executed": {"a.py": ["1"]}}, "whole number"),
    ({"executed": {"/abs.py": [1]}}, "relative path"),
    ({"commit": "not-a-sha"}, "hexadecimal"),
    ({"calls": [{"target": "pkg.Net", "seconds": -1}]}, "number of seconds"),
    ({"calls": [{"target": "pkg.Net", "seconds": "1e9"}]}, "number of seconds"),
    ({"version": 2}, "not a version 1"),
    ({"format": "something-else"}, "not a version 1"),
])
def test_hostile_or_malformed_files_are_refused(tmp_path: Path, changes: dict[str, Any], message: str) -> None:
    with pytest.raises(CensusError, match=message):
        load_census(census_file(tmp_path, **changes))


def test_a_census_from_another_commit_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CensusError, match="recorded on commit aaaaaaaaaaaa, not bbbbbbbbbbbb"):
        load_census(census_file(tmp_path), expected_commit="b" * 40)
    with pytest.raises(CensusError, match="does not say which commit"):
        load_census(census_file(tmp_path, commit=""), expected_commit="b" * 40)


def test_unreadable_files_say_why(tmp_path: Path) -> None:
    with pytest.raises(CensusError, match="no census file"):
        load_census(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "graphmend-census", "version": 1, "breaks": [')
    with pytest.raises(CensusError, match="unreadable"):
        load_census(broken)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(CensusError, match="unreadable"):
        load_census(deep)


def test_text_is_bounded_and_printable(tmp_path: Path) -> None:
    path = census_file(tmp_path, breaks=[{"path": "a.py", "line": 1, "reason": "x\u202e\x1b[31m" + "y" * 9999,
                                          "gb_id": "", "tests": ["t"]}])
    reason = load_census(path).breaks[0].reason
    assert len(reason) <= 500 and "\x1b" not in reason and "\u202e" not in reason
