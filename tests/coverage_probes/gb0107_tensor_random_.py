"""GB0107 Tensor.random_ op: `t.random_()` (GM621)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        x = x + torch.empty(3).random_(0, 2)  # graph-break: GB0107 GM621
        return x - 1


def inputs():
    return (torch.ones(3),)
