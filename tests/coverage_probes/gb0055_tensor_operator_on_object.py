"""GB0055 Failed to convert args/kwargs to proxy: a tensor times an object whose class answers
with `__rmul__` (GM623)."""

import torch


class Scale:
    def __init__(self, t: torch.Tensor) -> None:
        self.t = t

    def __rmul__(self, other: torch.Tensor) -> torch.Tensor:
        return other * self.t


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        scale = Scale(x + 1)
        return x * scale  # graph-break: GB0055 GM623


def inputs():
    return (torch.ones(3),)
