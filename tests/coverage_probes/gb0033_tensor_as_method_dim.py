"""GB0033 Data dependent operator: a 0-d tensor given as the dim of a reduction method is read
back as an int (GM302)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dim = (x > 2).sum() - 1
        return x.view(2, 2).sum(dim)  # graph-break: GB0033 GM302


def inputs():
    return (torch.arange(1.0, 5.0),)
