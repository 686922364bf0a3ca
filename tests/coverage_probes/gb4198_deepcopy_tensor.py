"""GB4198 Attempted to copy.deepcopy a tensor (GM604)."""

import copy

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        snapshot = copy.deepcopy(x)  # graph-break: GB4198 GM604
        return snapshot + 1


def inputs():
    return (torch.ones(3),)
