"""GB0033 Data dependent operator: `torch.cov` checks its inputs with `aten.equal` while it runs,
from the table generated from torch's operator database (GM105)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        covariance = torch.cov(x)  # graph-break: GB0033 GM105
        return covariance + 1


def inputs():
    return (torch.randn(3, 4),)
