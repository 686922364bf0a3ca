"""GB6012 Cannot trace user-defined __len__: `len()` of a dict's `values()` view built in
`__init__`, outside the compiled region (GM677)."""

import torch


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.offsets = {"a": 1, "b": 2}.values()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        x = x / len(self.offsets)  # graph-break: GB6012 GM677
        return x


def inputs():
    return (torch.ones(3),)
