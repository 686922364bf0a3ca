"""GB0059 Failed to trace builtin operator: `str(x)` of a tensor (GM622)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        x = x + len(str(x))  # graph-break: GB0059 GM622
        return x - 1


def inputs():
    return (torch.ones(3),)
