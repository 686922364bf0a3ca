"""GB0001 Argument of `as_subclass` must be a non-dispatcher-style tensor subclass: `x.as_subclass(torch.Tensor)` (GM641)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        plain = x.as_subclass(torch.Tensor)  # graph-break: GB0001 GM641
        return plain - 1


def inputs():
    return (torch.ones(3),)
