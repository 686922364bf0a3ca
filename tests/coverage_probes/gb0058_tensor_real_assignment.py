"""GB0058 Failed to set tensor attribute: `t.real = v` (GM630)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        x.real = x * 3  # graph-break: GB0058 GM630
        return x - 1


def inputs():
    return (torch.ones(3),)
