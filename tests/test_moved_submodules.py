"""`self.out = nn.Linear(...).to(device)`: `.to()`, `.float()`, `.cuda()`, `.train()` ... return the
module they are called on, so the attribute holds what the class builds and `self.out(h)` returns
what its forward returns (deepctr_torch builds every output layer so; kind_gaps.py counted those
results as tensors graphmend did not know). Measured with Dynamo on torch 2.13 against what
`graphmend check` reports: `float(y[1])` on the layer's result reads a tensor back (GB0124); the
near miss, a moved module whose forward returns a Python int, traces and is not reported."""

from __future__ import annotations

from sample_modules import dynamo_breaks, graphmend_findings, line_of

MOVED_LAYER = """
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 3)

    def forward(self, x):
        return self.proj(x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Block().float()
        self.out = nn.Linear(3, 3).to("cpu").train()

    def forward(self, x):
        y = self.out(x)
        scale = float(y[1])
        h = self.inner(x)
        shift = int(h[0])
        return y * scale + shift
"""

MOVED_COUNTER = """
import torch
from torch import nn


class Count(nn.Module):
    def forward(self, x):
        return 3


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.count = Count().to("cpu")

    def forward(self, x):
        n = self.count(x)
        scale = float(n)
        if n > 2:
            return x * scale
        return x
"""


def test_moved_layer_result_is_a_tensor(tmp_path):
    breaks = dynamo_breaks(MOVED_LAYER, tmp_path)
    rows = {line_of(MOVED_LAYER, "scale = float"), line_of(MOVED_LAYER, "shift = int")}
    assert {line for line, _ in breaks} == rows
    assert {(line, gb_id) for line, _, gb_id in graphmend_findings(MOVED_LAYER, tmp_path)} == breaks


def test_moved_module_returning_an_int_stays_unreported(tmp_path):
    assert dynamo_breaks(MOVED_COUNTER, tmp_path) == set()
    assert graphmend_findings(MOVED_COUNTER, tmp_path) == set()
