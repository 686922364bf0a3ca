"""Recall against TorchDynamo on the rule fixtures: every break line Dynamo reports is found.

Each fixture's `dynamo_cases()` is run under `torch._dynamo.explain` (plus Dynamo's own
graph_breaks log, see benchmarks/ground_truth.py); every break line inside the fixture must be
marked `# expect:` and reported by `graphmend check`.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

torch = pytest.importorskip("torch")

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from ground_truth import Tree, dynamo_breaks, normalise  # noqa: E402
from test_rule_fixtures import DEPENDENCY_SITE, FILES, expected, reported  # noqa: E402

WITH_CASES = [p for p in FILES if "def dynamo_cases" in p.read_text(encoding="utf-8")]


def load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"gm_fixture_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def unwrap(fn):
    while (inner := getattr(fn, "_orig_mod", None) or getattr(fn, "_torchdynamo_orig_callable", None)) is not None:
        fn = inner
    return fn


@pytest.mark.parametrize("path", WITH_CASES, ids=[p.stem for p in WITH_CASES])
def test_every_dynamo_break_line_is_found(path: Path) -> None:
    tree = Tree([str(path)])
    breaks: set[int] = set()
    for fn, args in load(path).dynamo_cases():
        explained = dynamo_breaks(unwrap(fn), tuple(args), {}, tree)
        # A break whose whole stack lies in the fake installed package is in its own frames (Dynamo
        # resumes inside the dependency after a break there): no line of the fixture.
        unmapped = [b for b in explained.unmapped if not _in_dependency(b.stack)]
        assert not unmapped, unmapped
        breaks |= {line for file, line in explained.lines if file == normalise(str(path))}
    found = {row for row, _ in reported(path)}
    marked = {row for row, _ in expected(path)}
    assert breaks <= found, f"Dynamo breaks at {sorted(breaks - found)}, not reported"
    assert breaks <= marked, f"Dynamo breaks at {sorted(breaks - marked)}, not marked in the fixture"


def _in_dependency(stack: tuple[tuple[str, int], ...]) -> bool:
    site = normalise(str(DEPENDENCY_SITE))
    return bool(stack) and all(file.startswith(site) for file, _ in stack)


def test_positive_fixtures_break_under_dynamo() -> None:
    """The cases are not vacuous: Dynamo breaks in every fixture whose cases exercise a rule."""
    path = next(p for p in WITH_CASES if p.name.startswith("GM101_"))
    (fn, args), = load(path).dynamo_cases()
    explained = dynamo_breaks(unwrap(fn), tuple(args), {}, Tree([str(path)]))
    assert explained.lines
