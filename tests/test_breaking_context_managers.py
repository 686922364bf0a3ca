"""GM660 and GM661 against TorchDynamo: each `with` or `try` line they report breaks there
("step_unsupported"), and the negatives of their fixtures (one operation before the statement, or a
break since the last two, a manager or body without a break, a break only on an error path, a plain
helper) break nowhere at their line (tests/fixtures/rules/GM660_breaking_context_manager.py,
GM661_breaking_try_body.py). GM684 the same way: each `with` it reports breaks there (GB0142, a
manager whose construction broke), its negatives (in a loop or `try`, a construction that does not
break, one that breaks only under a flag the call leaves false) nowhere (GM684_manager_built_by_breaking_call.py).
GM657 the same way: each statement reading a property whose getter breaks, nowhere else (GM657_breaking_property_read.py),
and GM658: each statement whose operator, unpacking or `for` runs a breaking dunder (GM658_breaking_operator_dunder.py)."""

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

RULES = REPO / "tests" / "fixtures" / "rules"
CASES = [
    (RULES / "GM657_breaking_property_read.py", "GM657", ast.Assign, 2),
    (RULES / "GM658_breaking_operator_dunder.py", "GM658", (ast.Assign, ast.For), 4),
    (RULES / "GM660_breaking_context_manager.py", "GM660", ast.With, 10),
    (RULES / "GM661_breaking_try_body.py", "GM661", ast.Try, 2),
    (RULES / "GM684_manager_built_by_breaking_call.py", "GM684", ast.With, 9),
]


def _statement_lines(fixture: Path, statement: type[ast.stmt] | tuple[type[ast.stmt], ...]) -> set[int]:
    tree = ast.parse(fixture.read_text(encoding="utf-8"))
    return {node.lineno for node in ast.walk(tree) if isinstance(node, statement)}


@pytest.mark.parametrize(("fixture", "code", "statement", "count"), CASES, ids=[code for _, code, _, _ in CASES])
def test_reported_lines_are_exactly_where_dynamo_breaks(
    fixture: Path, code: str, statement: type[ast.stmt] | tuple[type[ast.stmt], ...], count: int
) -> None:
    breaks: set[int] = set()
    for module, args in load(fixture).dynamo_cases():
        explained = dynamo_breaks(module, tuple(args), {}, Tree([str(fixture)]))
        breaks |= {line for file, line in explained.lines if file == normalise(str(fixture))}
    found = {row for row, reported_code in reported(fixture) if reported_code == code}
    assert len(found) == count, found
    assert found == breaks & _statement_lines(fixture, statement)
