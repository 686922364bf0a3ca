"""The wild benchmark's small subset: its figures on two real libraries can only go up.

Runs benchmarks/wild/harness.py (the code behind `benchmarks/wild/run.py`) on one call each of
torchdiffeq and torchsde, two small pure-Python libraries pinned in the `test` extra: Dynamo's
break lines, eager line coverage and `graphmend check` over the installed package. The floors are
the figures measured on 2026-11-24 (torchdiffeq at 82939b9, torchsde at recallF 8fd7d2e; torch 2.13.0 CPU; first set on 2026-11-23 at
cf44ab4, 2/9 and 0/21) with
    measure("torchdiffeq", calls=["rk4_fixed_grid"]) and measure("torchsde", calls=["euler"]);
raise them when the analysis improves, never lower them. A failure shows the misses and false
positives of a development-half library, and only their number for a test-half one (split.py: the test
half's lines are counted, never read).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("torchdiffeq")
pytest.importorskip("torchsde")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks" / "wild"))

from harness import measure
from split import DEV, half

# (library, calls, Dynamo break statements at least, recall floor, executed-precision floor or None
# when no finding was on an executed line)
FLOORS = [
    # 9 break statements, all found (the solver loop through the registry dispatch, the asserts
    # and step-size logic); every finding on an executed line confirmed
    ("torchdiffeq", ["rk4_fixed_grid"], 9, 9 / 9, 1.0),
    # 21 break statements; 20 found and all 20 executed findings confirmed at recallF (8fd7d2e:
    # bound-method attributes, held objects, GM604 generator use, GM610); one missed
    ("torchsde", ["euler"], 21, 20 / 21, 1.0),
]


@pytest.mark.parametrize(("library", "calls", "breaks", "recall", "precision"), FLOORS, ids=[f[0] for f in FLOORS])
def test_wild_figures_do_not_fall(
    library: str, calls: list[str], breaks: int, recall: float, precision: float | None
) -> None:
    report = measure(library, calls=calls)
    assert report.error is None, report.error
    assert [c.error for c in report.calls] == [None] * len(calls)
    # the ground truth itself: Dynamo still breaks where it did (torch is pinned)
    assert report.break_statements >= breaks
    assert report.recall is not None and report.recall >= recall - 1e-9, _shown(library, report.missed)
    if precision is not None:
        assert report.precision is not None and report.precision >= precision - 1e-9, _shown(
            library, report.false_positives
        )


def _shown(library: str, rows: list) -> object:
    """What a failed floor prints: the rows of a development-half library, the count for a test-half one."""
    return rows if half(library) == DEV else f"{len(rows)} (a test-half library: counted, not shown)"


def test_statement_matching(tmp_path: Path) -> None:
    """A finding and a break match when they fall in the same statement; an `if` holds only its header."""
    from harness import Statements

    source = tmp_path / "m.py"
    source.write_text(
        "@decorator\n"  # 1
        "def f(x,\n"  # 2
        "      y):\n"  # 3
        "    if (x.sum()\n"  # 4
        "            > 0):\n"  # 5
        "        z = torch.cat(\n"  # 6
        "            [x, y],\n"  # 7
        "        )\n"  # 8
        "    return z\n",  # 9
        encoding="utf-8",
    )
    statements = Statements(str(source))
    assert [statements.start(line) for line in range(1, 10)] == [1, 1, 1, 4, 4, 6, 6, 6, 9]
    assert statements.text(6) == "z = torch.cat("


def test_a_library_that_fails_is_reported_not_fatal() -> None:
    """Each library runs in its own subprocess; one that cannot load becomes a row with its error."""
    from run import run_isolated, table

    report = run_isolated("no_such_library", sample=1)
    assert report.error is not None and "no_such_library" in report.error
    assert "no_such_library" in table([report])


def test_a_failed_floor_shows_only_counts_for_the_test_half() -> None:
    rows = [{"where": "pkg/m.py:1"}]
    dev = next(name for name in ("torchdiffeq", "kornia", "captum", "heavyball") if half(name) == DEV)
    assert _shown(dev, rows) == rows
    assert _shown("torchsde", rows) == "1 (a test-half library: counted, not shown)"
