"""GB0170 Data-dependent branching: a `while` on a tensor's value (GM104)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 4
        while x.abs().max() > 1:  # graph-break: GB0170 GM104
            x = x / 2
        return x


def inputs():
    return (torch.ones(3),)
