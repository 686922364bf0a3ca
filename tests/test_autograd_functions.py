"""GM637 (autograd.Function uses Dynamo cannot trace): near misses Dynamo traces, measured against
torch 2.13 (tests/coverage_probes/gb0144_*, gb0145_*, gb0085_*, gb2019_* hold the breaks; the rule
fixture the same-module cases; test_python_machinery_rules.py the class found across modules)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


NEAR_MISSES = """
import torch
from torch import nn


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
        b = SetupContext.apply(x.clone())
        c = NotAFunction.apply(x)
        return b + c
"""


def test_mark_dirty_in_setup_context_and_an_apply_of_no_function_class_are_not_reported(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from sample_modules import dynamo_breaks, graphmend_findings

    assert dynamo_breaks(NEAR_MISSES, tmp_path) == set()
    assert graphmend_findings(NEAR_MISSES, tmp_path) == set()
