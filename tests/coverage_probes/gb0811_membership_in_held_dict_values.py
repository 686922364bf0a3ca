"""GB0811 missing tp_iter: `in` on a dict's `values()` view built in `__init__`, outside the
compiled region (GM678): the view has no `__contains__`, so `in` iterates it."""

import torch


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.offsets = {"a": 1, "b": 2}.values()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        x = x + (2 in self.offsets)  # graph-break: GB0811 GM678
        return x


def inputs():
    return (torch.ones(3),)
