"""The registry coverage table (docs/coverage.md) and the probes behind it.

Every probe in tests/coverage_probes/ is run through TorchDynamo (`torch._dynamo.explain` plus the
graph_breaks log, ids mapped as the census maps them) and through `graphmend check`: each line
marked `# graph-break: GBnnnn GMnnn` must break with that id, and be reported by that rule with
that id (`-`: no rule reports it yet). docs/coverage.md must be what benchmarks/coverage_table.py
generates from the pinned torch's registry and today's rules.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.rules import RULES

torch = pytest.importorskip("torch")

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from coverage_table import (  # noqa: E402
    COVERAGE_MD,
    PROBES,
    Mark,
    load_registry,
    probe_marks,
    render,
)

from graphmend_bot.census.dynamo import Tree, explain_breaks  # noqa: E402

# A stand-in for an installed package, which the GM608 probes call (with `dependencies: [fakedep]`).
DEPENDENCY_SITE = REPO / "tests" / "fixtures" / "dependency" / "site"
if str(DEPENDENCY_SITE) not in sys.path:
    sys.path.append(str(DEPENDENCY_SITE))

PROBE_FILES = sorted(PROBES.glob("gb*.py"))


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"gm_probe_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def graphmend_findings() -> dict[tuple[str, int], set[tuple[str, str]]]:
    """(probe file name, line) -> {(rule code, graph-break id)}, from one check of every probe."""
    result = check([str(p) for p in PROBE_FILES], Config(dependencies=["fakedep"]), jobs=1)
    assert not result.errors, result.errors
    found: dict[tuple[str, int], set[tuple[str, str]]] = {}
    for finding in result.findings:
        found.setdefault((Path(finding.path).name, finding.location.row), set()).add((finding.code, finding.gb_id))
    return found


@pytest.mark.parametrize("path", PROBE_FILES, ids=[p.stem for p in PROBE_FILES])
def test_probe_breaks_with_its_id_and_graphmend_reports_it(path: Path, graphmend_findings) -> None:
    marks = probe_marks(path)
    assert marks, f"{path.name}: no `# graph-break: GBnnnn GMnnn` mark"
    module = _load(path)
    torch._dynamo.reset()
    explained = explain_breaks(module.Probe(), tuple(module.inputs()), {}, Tree([str(path)]))
    here = str(Path(path).resolve())
    dynamo = {(line, b.gb_id) for b in explained.breaks if b.location for file, line in [b.location] if file == here}
    marked = {(m.line, m.gb_id) for m in marks}
    assert marked <= dynamo, f"{path.name}: Dynamo broke at {sorted(dynamo)}, marked {sorted(marked)}"
    assert {line for line, _ in dynamo} <= {m.line for m in marks}, f"unmarked Dynamo breaks: {sorted(dynamo)}"
    for mark in marks:
        reported = graphmend_findings.get((path.name, mark.line), set())
        if mark.code != "-":
            assert (mark.code, mark.gb_id) in reported, f"{path.name}:{mark.line}: graphmend reported {reported}"


def test_every_probe_file_is_named_after_a_marked_id_and_has_the_parts() -> None:
    registry = load_registry()
    for path in PROBE_FILES:
        marks = probe_marks(path)
        text = path.read_text(encoding="utf-8")
        assert {m.gb_id for m in marks} <= set(registry), path.name
        assert path.name[:6].upper() in {m.gb_id for m in marks}, path.name
        assert text.startswith('"""' + path.name[:6].upper()), f"{path.name}: the docstring names its id first"
        assert "class Probe(torch.nn.Module)" in text and "def inputs()" in text, path.name


def test_every_id_a_rule_claims_has_a_probe_for_that_rule() -> None:
    probed = {(m.gb_id, m.code) for path in PROBE_FILES for m in probe_marks(path)}
    missing = [(gb_id, rule.code) for rule in RULES for gb_id in rule.gb_ids if (gb_id, rule.code) not in probed]
    assert not missing, f"no probe for {missing} (tests/coverage_probes/, docs/coverage.md says how)"


def test_coverage_md_is_generated_from_the_pinned_registry() -> None:
    expected = render(load_registry())
    assert COVERAGE_MD.read_text(encoding="utf-8") == expected, (
        "docs/coverage.md is out of date: run `python benchmarks/coverage_table.py`"
    )


def test_marks_are_read_from_the_comment() -> None:
    assert Mark.parse(3, "    if x.sum() > 0:  # graph-break: GB0170 GM101") == Mark(3, "GB0170", "GM101")
    assert Mark.parse(4, "    with ctx:  # graph-break: GB0142 -") == Mark(4, "GB0142", "-")
    assert Mark.parse(5, "    y = x  # expect: GM101") is None
