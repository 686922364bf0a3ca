"""GB0170 Data-dependent branching: the builtin `all` over tensors (GM106)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        ok = all(x > -10)  # graph-break: GB0170 GM106
        return x + ok


def inputs():
    return (torch.ones(3),)
