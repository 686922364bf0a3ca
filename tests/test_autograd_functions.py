"""GM637 (autograd.Function uses Dynamo cannot trace): the near misses Dynamo traces and the
`mark_dirty` line, measured against torch 2.13 (tests/coverage_probes/gb0144_*, gb0145_*, gb0085_*,
gb2019_* hold the breaks themselves; the class found across modules: test_python_machinery_rules.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


NEAR_MISSES = """
import torch
from torch import nn


class Doubled(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x, None)
        ctx.set_materialize_grads(False)
        ctx.mark_non_differentiable(x)
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class SetupContext(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x.mul_(2)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.mark_dirty(inputs[0])

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class NotAFunction:
    vjp = None

    @staticmethod
    def apply(x):
        return x * 2


class Model(nn.Module):
    def forward(self, x):
        a = Doubled.apply(x)
        b = SetupContext.apply(x.clone())
        c = NotAFunction.apply(x)
        return a + b + c
"""


def test_context_methods_dynamo_traces_and_non_function_classes_are_not_reported(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from sample_modules import dynamo_breaks, graphmend_findings

    assert dynamo_breaks(NEAR_MISSES, tmp_path) == set()
    assert graphmend_findings(NEAR_MISSES, tmp_path) == set()


MARK_DIRTY_ELSEWHERE = """
import torch
from torch import nn


class InPlace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class Model(nn.Module):
    def forward(self, x):
        return InPlace.apply(x.clone()) + 1
"""


def test_mark_dirty_breaks_at_its_line_where_no_input_requires_grad(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from sample_modules import dynamo_breaks, graphmend_findings

    assert dynamo_breaks(MARK_DIRTY_ELSEWHERE, tmp_path) == {(10, "GB2019")}
    assert graphmend_findings(MARK_DIRTY_ELSEWHERE, tmp_path) == {(10, "GM637", "GB2019")}
