"""Fingerprints tell the same break apart from a new one when lines moved (census --compare)."""

from __future__ import annotations

from pathlib import Path

from graphmend_bot.census.fingerprint import enclosing_function, fingerprints, normalised_source
from graphmend_bot.census.record import BreakRecord

SOURCE = """\
import torch


def top(x):
    def inner(y):
        return y.item()
    return inner(x)


class Net(torch.nn.Module):
    def forward(self, x):
        print(x)
        return x
"""


def test_the_enclosing_function_is_its_qualified_name(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(SOURCE)
    lines = SOURCE.splitlines()
    assert enclosing_function(str(path), lines.index("        return y.item()") + 1) == "top.<locals>.inner"
    assert enclosing_function(str(path), lines.index("    return inner(x)") + 1) == "top"
    assert enclosing_function(str(path), lines.index("        print(x)") + 1) == "Net.forward"
    assert enclosing_function(str(path), 1) == ""
    assert enclosing_function(str(tmp_path / "missing.py"), 3) == ""


def record(line: int, source: str, function: str = "Net.forward", gb_id: str = "GB0059") -> BreakRecord:
    return BreakRecord("pkg/m.py", line, "Failed to trace builtin operator", gb_id, ["t::a"], function,
                       normalised_source(source))


def test_a_break_that_moved_keeps_its_fingerprint() -> None:
    base = fingerprints([record(12, "        print(x)"), record(20, "print(y)")])
    head = fingerprints([record(15, "    print(x)  "), record(23, "print(y)")])  # three lines added above
    assert base.keys() == head.keys()
    assert head[next(iter(base))].line == 15


def test_what_differs_makes_another_break() -> None:
    base = fingerprints([record(12, "print(x)")])
    assert fingerprints([record(12, "print(x)", function="Net.other")]).keys() != base.keys()
    assert fingerprints([record(12, "print(x)", gb_id="GB0170")]).keys() != base.keys()
    assert fingerprints([record(12, "print(x + 1)")]).keys() != base.keys()


def test_alike_breaks_are_numbered_in_line_order() -> None:
    base = fingerprints([record(30, "print(x)"), record(12, "print(x)")])
    assert sorted((key.occurrence, found.line) for key, found in base.items()) == [(0, 12), (1, 30)]
    # one of two alike breaks removed: the later one's fingerprint goes
    head = fingerprints([record(12, "print(x)")])
    assert [base[key].line for key in base.keys() - head.keys()] == [30]


def test_a_census_without_source_text_falls_back_to_the_line() -> None:
    old = BreakRecord("pkg/m.py", 12, "Data-dependent branching", "", ["t::a"])
    (key,) = fingerprints([old])
    assert (key.kind, key.source) == ("Data-dependent branching", "line 12")
