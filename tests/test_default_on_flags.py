"""An arm whose test is a parameter defaulting to True (`if warn: warnings.warn(...)`) runs on the
default call, so it is not filed as a rare branch (analysis/frequency.py, `on_by_default`): its break
in a loop makes Dynamo skip the whole frame, and the later breaks of that frame do not happen (captum's
`prepare_gradient_inputs`). With the flag off by default the arm is rare, the frame is traced, and the
later break is Dynamo's. Each truth is measured with the census's Dynamo mapping."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings, line_of

torch = pytest.importorskip("torch")


def _source(default: bool) -> str:
    return f'''import warnings

import torch


def prepare(inputs, warn={default}):
    grad_required = []
    for index, item in enumerate(inputs):
        grad_required.append(item.requires_grad)
        if not item.requires_grad:
            if warn:
                warnings.warn("input %d did not require gradients" % index, stacklevel=2)
            item.requires_grad_()
    return grad_required


class Model(torch.nn.Module):
    def forward(self, x):
        flags = prepare((x,))
        return x * 2, flags
'''


def _dynamo_break_lines(source: str, tmp_path: Path) -> set[int]:
    return {line for line, _ in dynamo_breaks(source, tmp_path)}


@pytest.mark.parametrize("default", [True, False])
def test_the_lines_reported_are_the_lines_dynamo_breaks_at(tmp_path: Path, default: bool) -> None:
    source = _source(default)
    warn, requires_grad = line_of(source, "warnings.warn("), line_of(source, "item.requires_grad_()")
    breaks = _dynamo_break_lines(source, tmp_path)
    # on by default: the warning breaks in the loop and the frame runs eagerly after it; off: the
    # warning's arm is not taken and the input's flag change breaks
    assert breaks == ({warn} if default else {requires_grad})
    assert {line for line, _, _ in graphmend_findings(source, tmp_path)} == breaks
