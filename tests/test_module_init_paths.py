"""GM606 counts a break of an nn.Module's `__init__` only when every call runs it, measured on torch 2.13.

A construction Dynamo traces breaks at `super().__init__` (GB0119) when `__init__` breaks on the
call being traced. A break in an `if` arm the construction does not take, in a helper called only
from such an arm, or past an early `return`, leaves `__init__` traced whole: no break there, and no
GM606 (the old scope solver counted any finding of `__init__`, whatever its path).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from ground_truth import Tree, dynamo_breaks  # noqa: E402
from test_dynamo_ground_truth import load  # noqa: E402
from test_rule_fixtures import reported  # noqa: E402

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "rules" / "GM606_uninitialized_module_init.py"
QUIET = ("LogsWhenAsked", "LogsThroughHelper", "ReturnsEarly")


def super_init_row(class_name: str) -> int:
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    start = lines.index(f"class {class_name}(nn.Module):")
    return next(row for row in range(start, len(lines)) if "super().__init__()" in lines[row]) + 1


def dynamo_lines(case: str) -> set[int]:
    module = load(FIXTURE)
    torch._dynamo.reset()
    explained = dynamo_breaks(getattr(module, case)(), (torch.randn(3),), {}, Tree([str(FIXTURE)]))
    return {line for file, line in explained.lines if file.endswith(FIXTURE.name)}


def test_a_break_off_the_path_every_call_takes_is_no_uninitialized_module_break() -> None:
    assert dynamo_lines("BuildQuietly") == set()  # Dynamo traces each `__init__` whole
    found = reported(FIXTURE)
    for name in QUIET:
        assert (super_init_row(name), "GM606") not in found, name


def test_a_break_on_every_call_is_one() -> None:
    row = super_init_row("LogsAlways")
    assert row in dynamo_lines("BuildLogging")
    assert (row, "GM606") in reported(FIXTURE)

