"""GM643: `with` on a TorchDispatchMode subclass of the tree, measured with TorchDynamo beside the
rule's fixture: each module of tests/fixtures/rules/GM643_dispatch_mode_entered.py breaks exactly
on the lines marked `# expect: GM643` (GB0007), and the TorchFunctionMode subclass, the plain
manager and a mode built but never entered trace."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from graphmend_bot.census.dynamo import Tree, explain_breaks  # noqa: E402

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "rules" / "GM643_dispatch_mode_entered.py"
MODULES = ("EntersMode", "EntersSubclassOfMode", "EntersFunctionMode", "EntersPlainManager", "BuildsModeOnly")


def _marked_lines() -> set[int]:
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    return {number for number, line in enumerate(lines, 1) if "# expect: GM643" in line}


def test_dynamo_breaks_exactly_on_the_marked_lines() -> None:
    spec = importlib.util.spec_from_file_location("gm643_fixture", FIXTURE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    here = str(FIXTURE.resolve())
    found: set[tuple[int, str | None]] = set()
    for name in MODULES:
        torch._dynamo.reset()
        explained = explain_breaks(getattr(module, name)(), (torch.ones(3),), {}, Tree([here]))
        found |= {(b.location[1], b.gb_id) for b in explained.breaks if b.location and b.location[0] == here}
    assert found == {(line, "GB0007") for line in _marked_lines()}
