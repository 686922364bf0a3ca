"""After a break Dynamo resumes in a new frame whose inputs are the values live there: an int
parameter given such an input 0-d integer tensor traces, one computed after the break does not
(torch 2.13). tests/fixtures/resumed/resumed_inputs.py marks each line Dynamo breaks on with
`# breaks`; Dynamo and graphmend must both give exactly those lines."""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path

import pytest

from graphmend_bot.engine import check

torch = pytest.importorskip("torch")

from graphmend_bot.census.dynamo import Tree, explain_breaks  # noqa: E402

FIXTURE = Path(__file__).parent / "fixtures" / "resumed" / "resumed_inputs.py"


def _marked() -> set[int]:
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    return {row for row, line in enumerate(lines, 1) if line.rstrip().endswith("# breaks")}


def test_dynamo_breaks_on_the_marked_lines_only() -> None:
    spec = importlib.util.spec_from_file_location("gm_resumed_inputs", FIXTURE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    here = str(FIXTURE.resolve())
    lines: set[int] = set()
    for model, x in module.CASES:
        torch._dynamo.reset()
        explained = explain_breaks(model(), (x,), {}, Tree([str(FIXTURE)]))
        found = {b.location[1] for b in explained.breaks if b.location and b.location[0] == here}
        if model is module.PadShortInput and x is module.LONG:
            assert found == {min(_marked_in(module.pad_short_input))}  # the `if` only: the arm never runs
        lines |= found
    assert lines == _marked()


def _marked_in(function) -> set[int]:
    first = function.__code__.co_firstlineno
    return {row for row in _marked() if first <= row < first + len(inspect.getsource(function).splitlines())}


def test_graphmend_reports_the_marked_lines_only() -> None:
    # Not `F.pad(x, paddings, "reflect")` after the `if` nor `torch.narrow(x, -1, 0, length)`: their
    # tensors were bound before the `if` that broke, so they are inputs of the frame Dynamo resumed in.
    result = check([str(FIXTURE)], jobs=1)
    assert {f.location.row for f in result.findings} == _marked()
