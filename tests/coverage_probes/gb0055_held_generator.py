"""GB0055 Failed to convert args/kwargs to proxy: a torch.Generator built in `__init__` given to a random function (GM646)."""

import torch


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.gen = torch.Generator().manual_seed(0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        return x + torch.randn(3, generator=self.gen)  # graph-break: GB0055 GM646


def inputs():
    return (torch.ones(3),)
