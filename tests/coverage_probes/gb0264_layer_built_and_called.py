"""GB0264: `torch.nn.Parameter()` constructor: a layer built and called in one expression."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        return torch.nn.Linear(4, 4)(x)  # graph-break: GB0264 GM607


def inputs() -> tuple:
    return (torch.randn(4),)
