"""A tensor the module holds, passed as it is to a torch factory as a size, does not break: Dynamo
reads its value and guards on it (norse keeps `self.hidden_size = torch.as_tensor(hidden_size)`).
A size computed in the frame, from the input or from that tensor (`self.hidden_size + 1`), is a
graph value and breaks ("Data dependent operator"). Measured with Dynamo (torch 2.13, CPU)."""

from __future__ import annotations

from pathlib import Path

from sample_modules import agreed_break_lines, line_of

SOURCE = """\
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden_size = torch.as_tensor(4)
        self.register_buffer("width", torch.as_tensor(2))

    def forward(self, x):
        held = torch.zeros(x.shape[0], self.hidden_size)
        buffered = torch.ones(self.width)
        counted = (x > -100).sum()
        computed = torch.zeros(counted)
        grown = x.new_zeros(self.hidden_size + 1)
        return x.sum() + held.sum() + buffered.sum() + computed.sum() + grown.sum()
"""


def test_a_held_tensor_as_a_size_is_read_and_a_computed_one_breaks(tmp_path: Path) -> None:
    assert agreed_break_lines(SOURCE, tmp_path) == {line_of(SOURCE, "torch.zeros(counted)"), line_of(SOURCE, "new_zeros")}
