"""GB0036 Dynamic shape operator: indexing with a mask a helper returns (GM502, analysis/masks.py)."""

import torch


def positive(x: torch.Tensor) -> torch.Tensor:
    return x > 0


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        kept = x[positive(x)]  # graph-break: GB0036 GM502
        return kept + 1


def inputs():
    return (torch.ones(3),)
