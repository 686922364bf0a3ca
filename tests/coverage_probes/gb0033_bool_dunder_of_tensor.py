"""GB0033 Data dependent operator: `t.__bool__()` called by name, a tensor method reading the value back (GM302)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        x = x + x.sum().__bool__()  # graph-break: GB0033 GM302
        return x - 1


def inputs():
    return (torch.ones(3),)
