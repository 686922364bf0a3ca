"""GB0264 Attempted to use `torch.nn.Parameter()` constructor with Dynamo (GM607)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        scale = torch.nn.Parameter(torch.ones(3))  # graph-break: GB0264 GM607
        return x * scale


def inputs():
    return (torch.ones(3),)
