"""GM675's fixture measured with grad enabled: a hook handle stored in a global breaks exactly on the
lines the fixture marks (tests/test_dynamo_ground_truth.py runs under `torch.no_grad()`, where
`register_hook` on a tensor that needs no gradient raises in eager)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from ground_truth import Tree, dynamo_breaks  # noqa: E402
from test_rule_fixtures import expected  # noqa: E402

FIXTURE = REPO / "tests" / "fixtures" / "rules" / "GM675_hook_handle_in_global.py"


def test_global_hook_handles_break_where_the_fixture_marks_them() -> None:
    spec = importlib.util.spec_from_file_location("gm675_fixture", FIXTURE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    lines: set[int] = set()
    for fn, args in module.grad_cases():
        explained = dynamo_breaks(fn, tuple(args), {}, Tree([str(FIXTURE)]), no_grad=False)
        lines |= {line for b in explained.breaks if b.location for _, line in [b.location]}
    assert lines == {line for line, _ in expected(FIXTURE)}
