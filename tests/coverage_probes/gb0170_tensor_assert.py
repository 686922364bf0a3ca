"""GB0170 Data-dependent branching: `assert` on a tensor's value with a computed message (GM202)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor, name: str = "x") -> torch.Tensor:
        x = x * 2
        assert (x > -1e9).all(), "{} must be finite".format(name)  # graph-break: GB0170 GM202
        return x - 1


def inputs():
    return (torch.ones(3),)
