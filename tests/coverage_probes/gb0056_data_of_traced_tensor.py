"""GB0056 Failed to mutate tensor data attribute: `.data` of a tensor made in traced code (GM630)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        buffer = torch.zeros(3)
        buffer.data = x.clone()  # graph-break: GB0056 GM630
        return x + buffer


def inputs():
    return (torch.ones(3),)
