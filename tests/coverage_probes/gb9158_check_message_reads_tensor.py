"""GB9158 Can't convert torch._check*() message closure: a lambda reading a tensor (GM631)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        torch._check(x.shape[0] == 3, lambda: f"bad rows in {x}")  # graph-break: GB9158 GM631
        return x - 1


def inputs():
    return (torch.ones(3),)
