"""GB0811 missing tp_iter: iterating a dict's `values()` view built in `__init__`, outside the
compiled region (GM676)."""

import torch


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.offsets = {"a": 1, "b": 2}.values()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        for offset in self.offsets:  # graph-break: GB0811 GM676
            x = x + offset
        return x


def inputs():
    return (torch.ones(3),)
