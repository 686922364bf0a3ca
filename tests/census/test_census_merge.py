"""Merging a census into static findings: confirmed, ran without a break, and Dynamo-only breaks."""

from __future__ import annotations

from pathlib import Path

from graphmend_bot.census.merge import RUNTIME_CODE, merge_census
from graphmend_bot.census.record import BreakRecord, Census
from graphmend_bot.findings import CheckResult, Finding, Location

SOURCE = """import torch


def forward(x):
    if x.sum() > 0:
        x = x * 2
    print(
        "value", x,
    )
    y = x.tolist()
    return x
"""


def finding(code: str, row: int, end_row: int | None = None, path: str = "pkg/m.py") -> Finding:
    return Finding(code, "static", path, Location(row, 5), Location(end_row or row, 20), "GB0170")


def test_confirmed_ran_clean_and_runtime_findings(tmp_path: Path) -> None:
    census = Census(
        commit="a" * 40,
        breaks=[BreakRecord("pkg/m.py", 5, "Data-dependent branching", "GB0170", ["tests/t.py::test_a"]),
                BreakRecord("pkg/m.py", 8, "Failed to trace builtin operator", "GB0059", ["tests/t.py::test_b"]),
                BreakRecord("pkg/m.py", 10, "Unsupported Tensor.tolist() call", "GB0109", ["tests/t.py::test_c"]),
                BreakRecord("pkg/other.py", 3, "elsewhere", "GB0001", ["tests/t.py::test_d"])],
        executed={"pkg/m.py": [5, 6, 7, 8, 9, 10, 11]},
    )
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/m.py").write_text(SOURCE)
    path = str(tmp_path / "pkg/m.py")
    static = CheckResult([finding("GM101", 5, path=path), finding("GM401", 7, 9, path=path),
                          finding("GM301", 11, path=path)], [], 1)
    merged = merge_census(static, census, tmp_path, [path])
    by_row = {f.location.row: f for f in merged.findings}
    assert by_row[5].evidence is not None and by_row[5].evidence.describe() == "confirmed by Dynamo in tests/t.py::test_a"
    # A break on any line of a multi-line statement confirms it.
    assert by_row[7].evidence is not None and by_row[7].evidence.test == "tests/t.py::test_b"
    assert by_row[11].evidence is not None and by_row[11].evidence.status == "ran-without-break"
    runtime = by_row[10]
    assert (runtime.code, runtime.gb_id, runtime.source_line.strip()) == (RUNTIME_CODE, "GB0109", "y = x.tolist()")
    assert runtime.location == Location(10, 5) and "Unsupported Tensor.tolist() call" in runtime.message
    assert runtime.path == path
    # A break in a file the check did not cover is not reported as a finding of that check.
    assert len(merged.findings) == 4 and merged.files_checked == 1
    # --ignore GM801 (or a select without it) keeps the runtime findings out.
    quiet = merge_census(static, census, tmp_path, [path], codes=frozenset({"GM101", "GM401", "GM301"}))
    assert [f.code for f in quiet.findings] == ["GM101", "GM401", "GM301"]


def test_findings_on_lines_the_tests_never_ran_are_left_as_they_were(tmp_path: Path) -> None:
    static = CheckResult([finding("GM101", 5)], [], 1)
    merged = merge_census(static, Census(), tmp_path, [])
    assert merged.findings == static.findings and merged.findings[0].evidence is None


def test_a_hostile_test_id_stays_code_in_a_review_comment() -> None:
    from graphmend_bot.findings import Evidence
    from graphmend_bot.github.core.markers import is_summary
    from graphmend_bot.report.markdown import finding_comment

    hostile = "tests/t.py::x` @octocat [win](https://evil.example) <!-- graphmend:summary -->"
    found = Finding("GM101", "static", "pkg/m.py", Location(5, 5), Location(5, 20), "GB0170",
                    evidence=Evidence("confirmed", hostile, "Data-dependent branching", "GB0170"))
    body = finding_comment(found, "<!-- graphmend:finding 0123456789abcdef -->")
    line = next(text for text in body.split("\n\n") if text.startswith("Confirmed by Dynamo"))
    # One code span, fenced longer than the backtick inside: the mention, link and marker stay text.
    assert line == f"Confirmed by Dynamo in ``{hostile}``."
    assert not is_summary(body)
