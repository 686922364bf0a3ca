"""GB0055 Failed to convert args/kwargs to proxy: `total += t` on an object whose class answers
with `__iadd__` (GM623)."""

import torch


class Accumulator:
    def __init__(self, t: torch.Tensor) -> None:
        self.t = t

    def __iadd__(self, other: torch.Tensor) -> "Accumulator":
        self.t = self.t + other
        return self


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        total = Accumulator(x + 1)
        total += x  # graph-break: GB0055 GM623
        return total.t


def inputs():
    return (torch.ones(3),)
