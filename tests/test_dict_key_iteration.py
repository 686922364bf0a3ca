"""A loop or comprehension over a local dict gives its keys, not the kind of its values
(review9 #1: sorting the keys of a dict of tensors was reported as sorting tensors, GM618/GM627,
and `int(k == "a")` as reading a tensor back, GM302). Dynamo and graphmend give the same lines."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from graphmend_bot.engine import check

torch = pytest.importorskip("torch")

from graphmend_bot.census.dynamo import Tree, explain_breaks  # noqa: E402

FIXTURE = Path(__file__).parent / "fixtures" / "dict_keys" / "dict_key_iteration.py"


def _marked() -> set[int]:
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    return {row for row, line in enumerate(lines, 1) if line.rstrip().endswith("# breaks")}


def test_dynamo_breaks_on_the_marked_lines_only() -> None:
    spec = importlib.util.spec_from_file_location("gm_dict_key_iteration", FIXTURE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    here = str(FIXTURE.resolve())
    lines: set[int] = set()
    for model in module.CASES:
        torch._dynamo.reset()
        explained = explain_breaks(model(), (torch.randn(1),), {}, Tree([str(FIXTURE)]))
        lines |= {b.location[1] for b in explained.breaks if b.location and b.location[0] == here}
    assert lines == _marked()


def test_graphmend_reports_the_marked_lines_only() -> None:
    result = check([str(FIXTURE)], jobs=1)
    assert {f.location.row for f in result.findings} == _marked()
