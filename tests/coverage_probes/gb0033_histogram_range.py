"""GB0033 Data dependent operator: `torch.histc`'s range is a pair of Python numbers, so a range read
from the data (`min=y.min(), max=y.max()`, as calibration observers write it) is read back (GM305)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        return torch.histc(y, bins=8, min=y.min(), max=y.max())  # graph-break: GB0033 GM305


def inputs():
    return (torch.randn(16),)
