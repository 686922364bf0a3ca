"""benchmarks/wild/census_run.py's matching, on a fake census: the census's break lines are matched
to Dynamo's break statements by statement, with the wild harness's own keys (a break on any line of
a multi-line statement is that statement; a line in an `if` body is not the `if`)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks" / "wild"))

from census_run import census_keys, recall_counts, static_keys, truth_keys
from harness import LibraryReport, Line, StatementKeys

SOURCE = """\
def f(x):
    y = g(
        x.item(),
    )
    if x.sum() > 0:
        print(x)
    return y
"""


@pytest.fixture
def package(tmp_path: Path) -> Path:
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "mod.py").write_text(SOURCE)
    return folder


def test_census_lines_become_statement_keys(package: Path) -> None:
    census = {"breaks": [
        {"path": "mod.py", "line": 3},  # inside the call spread over lines 2-4: the statement at 2
        {"path": "mod.py", "line": 6},  # the `if` body's own statement, not the `if` header at 5
        {"path": "gone.py", "line": 1},  # a file the package does not have: not counted
    ]}
    keys = StatementKeys(str(package))
    assert census_keys(census, str(package), keys) == {("pkg/mod.py", 2), ("pkg/mod.py", 6)}


def test_recall_counts_each_side_against_dynamo() -> None:
    truth = {("pkg/mod.py", 2), ("pkg/mod.py", 5), ("pkg/mod.py", 6)}
    census = {("pkg/mod.py", 2), ("pkg/mod.py", 6), ("pkg/other.py", 9)}  # one break not in the truth
    static = {("pkg/mod.py", 5)}
    merged = static | census
    assert recall_counts(truth, census, static, merged) == (3, 2, 1, 3)


def test_static_keys_are_the_break_statements_the_check_did_not_miss() -> None:
    report = LibraryReport("pkg", "pkg", "1", "", [])
    report.break_lines = [Line("pkg/mod.py:2", "y = g(", "item"), Line("pkg/sub/x.py:10", "if t:", "branch")]
    report.missed = [Line("pkg/sub/x.py:10", "if t:", "branch")]
    assert truth_keys(report) == {("pkg/mod.py", 2), ("pkg/sub/x.py", 10)}
    assert static_keys(report) == {("pkg/mod.py", 2)}
