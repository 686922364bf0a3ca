"""GB0033 Data dependent operator: indexing with a 0-d boolean mask (`y[x.sum() > 0]`) reads the mask
back as a Python bool before any nonzero (GM502)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        return y[x.sum() > 0]  # graph-break: GB0033 GM502


def inputs():
    return (torch.randn(4),)
