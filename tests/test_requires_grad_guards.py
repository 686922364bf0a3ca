"""A `requires_grad` test of a value computed in the function names a mode (with grad enabled):
under `torch.no_grad()` (inference, the wild corpus's calls) the value requires no grad, Dynamo
folds the test, and the check it guards is never read. A module's own parameter keeps
`requires_grad` under `torch.no_grad()` too, so a test of one names no mode. Measured with Dynamo
(torch 2.13, CPU), with grad and under `torch.no_grad()` (analysis/modes.py arm_modes)."""

from __future__ import annotations

from pathlib import Path

import torch
from sample_modules import dynamo_breaks, graphmend_findings, line_of

from graphmend_bot.analysis.modes import modes_named
from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.vocabulary.mode_names import GRAD_ENABLED

SOURCE = """\
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3))

    def forward(self, x):
        y = x * self.w
        if y.requires_grad and y.sum() > 0:
            y = y + 1
        if self.w.requires_grad and y.sum() > 1:
            y = y + 1
        return y
"""
GUARDED, PARAMETER = line_of(SOURCE, "y.requires_grad and"), line_of(SOURCE, "self.w.requires_grad")


def test_a_computed_value_requires_grad_only_with_grad_enabled(tmp_path: Path) -> None:
    assert {row for row, _ in dynamo_breaks(SOURCE, tmp_path)} == {GUARDED, PARAMETER}
    with torch.no_grad():
        assert {row for row, _ in dynamo_breaks(SOURCE, tmp_path)} == {PARAMETER}
    assert {(row, code) for row, code, _ in graphmend_findings(SOURCE, tmp_path)} == {(GUARDED, "GM101"), (PARAMETER, "GM101")}
    path = tmp_path / "sample.py"
    path.write_text(SOURCE)
    named = {finding.location.row: modes_named(finding.message) for finding in check([str(path)], Config(), jobs=1).findings}
    assert named == {GUARDED: [GRAD_ENABLED], PARAMETER: []}
