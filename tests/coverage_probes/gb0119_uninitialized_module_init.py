"""GB0119 Uninitialized nn.Module: an nn.Module built in traced code whose `__init__` breaks (GM606)."""

import torch


class Checked(torch.nn.Module):
    def __init__(self, scale: torch.Tensor) -> None:
        super().__init__()  # graph-break: GB0119 GM606
        if scale.sum() > 0:  # graph-break: GB0170 GM101
            scale = scale - 1
        self.scale = scale


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        return Checked(x).scale + 1


def inputs():
    return (torch.ones(3),)
