"""GB7650 torch.Generator method: `self.gen.manual_seed(s)` on a generator `__init__` built, held from
outside the compiled region (GM647)."""

import torch


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.gen = torch.Generator()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        self.gen.manual_seed(0)  # graph-break: GB7650 GM647
        return x + 1


def inputs():
    return (torch.ones(3),)
