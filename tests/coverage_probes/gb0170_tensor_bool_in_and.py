"""GB0170 Data-dependent branching: `and` between tensor truth values (GM103)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        ok = (x > 0).all() and (x < 10).all()  # graph-break: GB0170 GM103
        return x + ok


def inputs():
    return (torch.ones(3),)
