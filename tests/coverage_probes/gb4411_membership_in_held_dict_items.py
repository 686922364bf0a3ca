"""GB4411 missing sq_contains: `in` on a dict's `items()` view built in `__init__`, outside the
compiled region (GM679)."""

import torch


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.pairs = {"a": 1, "b": 2}.items()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        x = x + (("a", 1) in self.pairs)  # graph-break: GB4411 GM679
        return x


def inputs():
    return (torch.ones(3),)
