"""GB4347 Missing tp_iternext: `next()` on an iterator built in `__init__` (`itertools.cycle`),
outside the compiled region (GM653)."""

import itertools

import torch


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.order = itertools.cycle([0, 1, 2])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        head = next(self.order)  # graph-break: GB4347 GM653
        return x[head]


def inputs():
    return (torch.ones(3),)
