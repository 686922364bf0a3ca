"""GB0033 Data dependent operator: a conditional expression on `torch.equal` (GM102, the Python-bool id)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        x = x * 2
        z = x + 1 if torch.equal(x, y) else x - 1  # graph-break: GB0033 GM102
        return z * 3


def inputs():
    return (torch.ones(3), torch.ones(3))
