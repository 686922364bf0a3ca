"""GB0127 Unsupported Tensor.resize_as_() call (GM621)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        x = x + torch.empty(2).resize_as_(x).zero_()  # graph-break: GB0127 GM621
        return x - 1


def inputs():
    return (torch.ones(3),)
