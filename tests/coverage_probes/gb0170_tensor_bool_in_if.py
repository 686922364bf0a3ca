"""GB0170 Data-dependent branching: `if` on a tensor's value (GM101)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        if x.sum() > 0:  # graph-break: GB0170 GM101
            x = x + 1
        return x - 1


def inputs():
    return (torch.ones(3),)
