"""GM660 against TorchDynamo: each `with` it reports breaks there ("step_unsupported"), and the
negatives of its fixture (one operation before the `with`, a generator or class without a break, a
plain helper) break nowhere at their `with` (tests/fixtures/rules/GM660_breaking_context_manager.py)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from ground_truth import Tree, dynamo_breaks, normalise  # noqa: E402
from test_dynamo_ground_truth import load  # noqa: E402
from test_rule_fixtures import reported  # noqa: E402

FIXTURE = REPO / "tests" / "fixtures" / "rules" / "GM660_breaking_context_manager.py"


def _with_lines() -> set[int]:
    tree = ast.parse(FIXTURE.read_text(encoding="utf-8"))
    return {node.lineno for node in ast.walk(tree) if isinstance(node, ast.With)}


def test_reported_with_lines_are_exactly_where_dynamo_breaks() -> None:
    breaks: set[int] = set()
    for module, args in load(FIXTURE).dynamo_cases():
        explained = dynamo_breaks(module, tuple(args), {}, Tree([str(FIXTURE)]))
        breaks |= {line for file, line in explained.lines if file == normalise(str(FIXTURE))}
    found = {row for row, code in reported(FIXTURE) if code == "GM660"}
    assert len(found) == 4, found
    assert found == breaks & _with_lines()
