"""`self.to_logits = nn.Sequential(nn.LayerNorm(3), nn.Linear(3, 3))`: called, an nn.Sequential
returns what its last layer returns, so with a torch.nn layer of the table last its result is a
tensor (local_attention's and tab_transformer_pytorch's logits: kind_gaps.py counted them as
tensors graphmend did not know). Measured with Dynamo on torch 2.13 against what `graphmend check`
reports: `float(y[1])` on the result reads a tensor back (GB0124). The near miss, a Sequential whose
last layer is the tree's own module returning a Python int, traces and is not reported."""

from __future__ import annotations

from sample_modules import dynamo_breaks, graphmend_findings, line_of

TORCH_LAST = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.to_logits = nn.Sequential(nn.LayerNorm(3), nn.ReLU(), nn.Linear(3, 3))

    def forward(self, x):
        y = self.to_logits(x)
        scale = float(y[1])
        return y * scale
"""

OWN_LAST = """
import torch
from torch import nn


class Count(nn.Module):
    def forward(self, x):
        return 3


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.count = nn.Sequential(nn.Linear(3, 3), Count())

    def forward(self, x):
        n = self.count(x)
        scale = float(n)
        if n > 2:
            return x * scale
        return x
"""


def test_sequential_ending_in_a_torch_layer_returns_a_tensor(tmp_path):
    breaks = dynamo_breaks(TORCH_LAST, tmp_path)
    assert {line for line, _ in breaks} == {line_of(TORCH_LAST, "scale = float")}
    assert {(line, gb_id) for line, _, gb_id in graphmend_findings(TORCH_LAST, tmp_path)} == breaks


def test_sequential_ending_in_a_module_returning_an_int_stays_unreported(tmp_path):
    assert dynamo_breaks(OWN_LAST, tmp_path) == set()
    assert graphmend_findings(OWN_LAST, tmp_path) == set()
