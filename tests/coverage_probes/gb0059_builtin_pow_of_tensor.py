"""GB0059 Failed to trace builtin operator: the builtin `pow()` of a tensor (GM654); `**` traces."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        squared = (x - 1) ** 2
        return squared + pow(x - 1, 2)  # graph-break: GB0059 GM654


def inputs():
    return (torch.ones(3),)
