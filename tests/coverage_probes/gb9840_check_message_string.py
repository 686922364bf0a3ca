"""GB9840 Can't extract message from torch._check*(): a string message (GM631)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        torch._check(x.shape[0] == 3, lambda: "three rows")  # a lambda of constants: traced
        x = x + 1
        torch._check(x.shape[0] == 3, "three rows")  # graph-break: GB9840 GM631
        return x - 1


def inputs():
    return (torch.ones(3),)
