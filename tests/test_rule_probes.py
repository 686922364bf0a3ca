"""The probes of tests/coverage_probes/: Dynamo breaks with the marked id at the marked line, and
`graphmend check` reports that line with the marked rule and the same id.

A probe is `<gb id>_<slug>.py` with `class Probe(torch.nn.Module)`, `def inputs()` and the break's
line ending in `# graph-break: GB0170 GM101` (`-` for an id no rule reports). Ground truth is
torch._dynamo.explain plus the graph_breaks log, mapped the way the census maps them."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from graphmend_bot.engine import check

torch = pytest.importorskip("torch")

from graphmend_bot.census.dynamo import Tree, explain_breaks, normalise  # noqa: E402

PROBES = sorted((Path(__file__).resolve().parent / "coverage_probes").glob("gb*.py"))
MARK = re.compile(r"#\s*graph-break:\s*(?P<gb>GB\d{4})\s+(?P<code>GM\d{3}|-)")


def _marks(path: Path) -> set[tuple[int, str, str]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return {(row, m["gb"], m["code"]) for row, line in enumerate(lines, 1) if (m := MARK.search(line))}


@pytest.mark.parametrize("path", PROBES, ids=[p.stem for p in PROBES])
def test_probe_breaks_and_is_reported_at_its_marked_line(path: Path) -> None:
    marks = _marks(path)
    assert marks, "a probe marks the line where Dynamo breaks"
    spec = importlib.util.spec_from_file_location(f"gm_probe_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    explained = explain_breaks(module.Probe(), tuple(module.inputs()), {}, Tree([str(path)]))
    broken = {(b.location[1], b.gb_id) for b in explained.breaks if b.location and b.location[0] == normalise(str(path))}
    assert {(row, gb) for row, gb, _ in marks} <= broken
    findings = check([str(path)], jobs=1).findings
    reported = {(f.location.row, f.gb_id, f.code) for f in findings}
    assert {mark for mark in marks if mark[2] != "-"} <= reported
