"""GB0033 Data dependent operator: `if torch.equal(a, b)` (GM101, the Python-bool id)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        x = x * 2
        if torch.equal(x, y):  # graph-break: GB0033 GM101
            x = x + 1
        return x - 1


def inputs():
    return (torch.ones(3), torch.ones(3))
