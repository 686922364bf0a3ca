"""GB0569 repr() on tensor: `repr(x)` (GM622)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        x = x + len(repr(x))  # graph-break: GB0569 GM622
        return x - 1


def inputs():
    return (torch.ones(3),)
