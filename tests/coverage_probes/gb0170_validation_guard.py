"""GB0170 Data-dependent branching: an `if` on a tensor that raises (GM201)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        if torch.isnan(x).any():  # graph-break: GB0170 GM201
            raise ValueError("NaN in input")
        return x - 1


def inputs():
    return (torch.ones(3),)
