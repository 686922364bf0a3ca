"""Findings that only one mode reaches say so, and Dynamo agrees on which mode breaks (torch 2.13)."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from graphmend_bot.analysis.modes import dtypes_named, modes_named
from graphmend_bot.engine import check

FIXTURE = Path(__file__).parent / "fixtures" / "modes" / "mode_only_breaks.py"
EVERY_MODE = FIXTURE.with_name("every_mode_breaks.py")  # near misses: tensors read in eval too
MARK = re.compile(r"# mode: (.+)$")


def marked() -> dict[int, str]:
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    return {row: found.group(1) for row, line in enumerate(lines, 1) if (found := MARK.search(line))}


def test_findings_in_a_mode_only_branch_name_the_mode() -> None:
    findings = {f.location.row: f for f in check([str(FIXTURE)]).findings}
    modes = marked()
    assert set(findings) == set(modes)
    for row, mode in modes.items():
        assert findings[row].message.endswith(f" ({mode})"), (row, findings[row].message)
    assert findings[15].code == findings[19].code == "GM701"


def test_the_modes_a_message_names_are_read_back() -> None:
    """The wild benchmark sets apart findings in a mode its eval/float32 truth did not run."""
    findings = check([str(FIXTURE)]).findings
    assert {f.location.row: modes_named(f.message) for f in findings} == {row: mode.split(", ") for row, mode in marked().items()}
    assert modes_named("x breaks the graph (in training mode, in float16)") == ["in training mode", "in float16"]
    assert [dtypes_named(mode) for mode in ("in float16 or bfloat16", "in bfloat16", "in training mode", "under autocast")] \
        == [["float16", "bfloat16"], ["bfloat16"], [], []]
    for message in ("`f(x)` breaks the graph", "calls torch.nonzero (data-dependent)", "x (in float32)", "x (in training)"):
        assert modes_named(message) == [], message


def test_a_finding_on_every_path_names_no_mode(tmp_path: Path) -> None:
    source = tmp_path / "model.py"
    source.write_text(
        "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n"
        "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n"
        "        if self.training or x.dtype == torch.float16:\n"
        "            print('either')\n"
        "        x.requires_grad = True\n"
        "        return x * 2\n",
        encoding="utf-8",
    )
    messages = [f.message for f in check([str(source)]).findings]
    assert len(messages) == 2 and not any(m.endswith(")") for m in messages), messages


def test_a_local_that_is_a_tensor_in_every_mode_names_none(tmp_path: Path) -> None:
    """A local of one mode names it only while the condition's other operands are not tensors: a
    helper returning a tensor, a parameter rebound in training, a tensor bound on another path."""
    source = tmp_path / "model.py"
    source.write_text(
        "import torch\nfrom torch import nn\n\n\ndef helper(x):\n    return x.sum() > 0\n\n\n"
        "class M(nn.Module):\n"
        "    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:\n"
        "        skip = False\n"
        "        if self.training:\n"
        "            skip = torch.rand([]) < 0.5\n"
        "            y = y > 0\n"
        "        flag = helper(x)\n"
        "        if skip or flag:\n"  # 16: helper's result is a tensor in every mode
        "            x = x + 1\n"
        "        if y:\n"  # 18: the parameter was a tensor before training rebound it
        "            x = x + 2\n"
        "        other = False\n"
        "        if self.training:\n"
        "            other = torch.rand([]) < 0.5\n"
        "        else:\n"
        "            other = x.mean() > 0\n"
        "        if other:\n"  # 25: a tensor in eval too
        "            x = x + 3\n"
        "        if skip:\n"  # 27: training only
        "            x = x + 4\n"
        "        return x\n",
        encoding="utf-8",
    )
    messages = {f.location.row: f.message for f in check([str(source)]).findings if f.code == "GM101"}
    assert {row: modes_named(message) for row, message in messages.items()} == {
        16: [], 18: [], 25: [], 27: ["in training mode"],
    }, messages


def _dynamo_rows(module: object, x: object, no_grad: bool = True, fixture: Path = FIXTURE) -> dict[int, str]:
    from ground_truth import Tree, dynamo_breaks, normalise

    explained = dynamo_breaks(module, (x,), {}, Tree([str(fixture)]), no_grad=no_grad)
    return {b.location[1]: b.gb_id for b in explained.breaks
            if b.location is not None and b.location[0] == normalise(str(fixture))}


def _loaded(path: Path) -> Any:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    spec = importlib.util.spec_from_file_location(f"gm_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    fixture = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fixture)
    return fixture


def test_dynamo_breaks_in_the_named_mode_only() -> None:
    torch = pytest.importorskip("torch")
    fixture = _loaded(FIXTURE)
    x = torch.ones(3)
    eval_rows = _dynamo_rows(fixture.Block().eval(), x)
    assert eval_rows == {}  # float32, eval: no mode-only line runs
    training_rows = _dynamo_rows(fixture.Block().train(), x)
    assert training_rows == {15: "GB8985", 19: "GB0206", 31: "GB0170", 34: "GB0170"}
    half_rows = _dynamo_rows(fixture.Block().eval().half(), x.half())
    assert half_rows == {20: "GB0170", 23: "GB0059"}
    with torch.autocast("cpu", dtype=torch.bfloat16):
        autocast_rows = _dynamo_rows(fixture.Block().eval(), x)
    assert autocast_rows == {25: "GB0059"}
    grad_rows = _dynamo_rows(fixture.Block().eval(), x, no_grad=False)
    assert grad_rows == {36: "GB8985"}  # under no_grad above, only where the tensor outlived a graph (15)
    # the mode in a later operand of `and`, in a local bound by `and`, after a guard clause's `return`
    assert _dynamo_rows(fixture.ShortCircuits().eval(), x) == {}
    short_rows = _dynamo_rows(fixture.ShortCircuits().train(), x)
    assert short_rows == {53: "GB0170", 55: "GB0170", 57: "GB0170", 61: "GB0170"}
    # each line Dynamo breaks at in one mode is a finding naming that mode
    assert {**training_rows, **half_rows, **autocast_rows, **grad_rows, **short_rows}.keys() == marked().keys()


def test_near_misses_of_a_mode_name_none_and_break_in_eval() -> None:
    """A tensor operand before the mode's (`self.gate`, found one by the solver), a local that is a
    tensor outside the mode, an arm of one mode that does not leave: graphmend names no mode, and
    Dynamo breaks on each line in eval."""
    torch = pytest.importorskip("torch")
    findings = {f.location.row: f.message for f in check([str(EVERY_MODE)]).findings}
    assert {row: modes_named(message) for row, message in findings.items()} == {9: [], 12: [], 18: [], 20: []}, findings
    eval_rows = _dynamo_rows(_loaded(EVERY_MODE).EveryMode().eval(), torch.ones(3), fixture=EVERY_MODE)
    assert set(eval_rows) == set(findings)


FLAGS = FIXTURE.with_name("flag_off_by_default.py")


def test_a_flag_off_by_default_is_named_and_breaks_only_when_on() -> None:
    """`if self.check_nans and torch.isnan(t).any():` with `check_nans=False` by default: Dynamo
    reads the tensor only once the flag is on, so the finding names it; a flag on by default breaks
    with the defaults, and one a method of the class turns on (`harden()`) names nothing either."""
    torch = pytest.importorskip("torch")
    findings = {f.location.row: f.message for f in check([str(FLAGS)]).findings}
    assert {row: modes_named(message) for row, message in findings.items()} == {
        27: ["when `self.check_nans` is true"], 29: [], 31: []}, findings
    fixture, x = _loaded(FLAGS), torch.ones(3)
    assert set(_dynamo_rows(fixture.Reader(), x, fixture=FLAGS)) == {29}
    assert set(_dynamo_rows(fixture.Reader(check_nans=True), x, fixture=FLAGS)) == {27, 29}
    turned_on = fixture.Reader()
    turned_on.set_check_nans(True)
    turned_on.harden()  # the class's own method turns `strict` on: its finding names nothing
    assert set(_dynamo_rows(turned_on, x, fixture=FLAGS)) == {27, 29, 31}


ON_FLAGS = FIXTURE.with_name("flag_on_by_default.py")


def test_a_flag_on_by_default_is_named_and_breaks_only_when_off() -> None:
    """`if self.fast or t.sum() > 0:` with `fast=True` by default: `or` stops at the flag, so Dynamo
    reads the tensor only once a user turns it off, and the finding says so; a flag the class's own
    method turns off (`relax()`) names nothing."""
    torch = pytest.importorskip("torch")
    findings = {f.location.row: f.message for f in check([str(ON_FLAGS)]).findings}
    off = ["when `self.fast` is false"]
    assert {row: modes_named(message) for row, message in findings.items()} == {22: off, 24: off, 27: off, 28: []}, findings
    fixture, x = _loaded(ON_FLAGS), torch.ones(3)
    assert set(_dynamo_rows(fixture.Gate(), x, fixture=ON_FLAGS)) == set()
    assert set(_dynamo_rows(fixture.Gate(fast=False), x, fixture=ON_FLAGS)) == {22, 24, 27}
    relaxed = fixture.Gate()
    relaxed.relax()
    assert set(_dynamo_rows(relaxed, x, fixture=ON_FLAGS)) == {28}


UNSET = FIXTURE.with_name("attribute_unset_by_default.py")


def test_an_attribute_none_by_default_is_named_and_breaks_only_when_set() -> None:
    """`if self.mask is not None and self.mask.sum() > 0:` with `mask=None` by default: Dynamo
    specialises on the None and reads the tensor only once a user sets it (constructor or setter),
    so the finding says so; an attribute the class's own method sets (`remember()`) names nothing."""
    torch = pytest.importorskip("torch")
    findings = {f.location.row: f.message for f in check([str(UNSET)]).findings}
    unset = ["when `self.mask` is not None"]
    assert {row: modes_named(message) for row, message in findings.items()} == {
        26: unset, 28: unset, 31: unset, 32: [], 34: unset}, findings
    fixture, x = _loaded(UNSET), torch.ones(3)
    assert set(_dynamo_rows(fixture.Masked(), x, fixture=UNSET)) == set()
    assert set(_dynamo_rows(fixture.Masked(mask=torch.ones(1)), x, fixture=UNSET)) == {26, 28, 31, 34}
    set_later = fixture.Masked()
    set_later.set_mask(torch.ones(1))
    assert set(_dynamo_rows(set_later, x, fixture=UNSET)) == {26, 28, 31, 34}
    remembered = fixture.Masked()
    remembered.remember(x)
    assert set(_dynamo_rows(remembered, x, fixture=UNSET)) == {32}
