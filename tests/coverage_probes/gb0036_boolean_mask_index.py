"""GB0036 Dynamic shape operator: indexing with a boolean mask (GM502)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        kept = x[x > 0]  # graph-break: GB0036 GM502
        return kept + 1


def inputs():
    return (torch.ones(3),)
