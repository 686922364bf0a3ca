"""GB0059 Failed to trace builtin operator: `operator.truth(t)` of a tensor, read as `bool(t)` (GM302)."""

import operator

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        x = x + operator.truth(x.sum())  # graph-break: GB0059 GM302
        return x - 1


def inputs():
    return (torch.ones(3),)
