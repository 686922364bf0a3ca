"""GB0170 Data-dependent branching: a `match` case's value pattern on a tensor subject (GM101)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        match x.sum():
            case 0:  # graph-break: GB0170 GM101
                x = x + 1
            case _:
                x = x - 1
        return x


def inputs():
    return (torch.ones(3),)
