"""GB0225 Attempted to use tensor creation function with requires_grad=True: a torch factory in traced code (GM701)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        weight = torch.ones(3, requires_grad=True)  # graph-break: GB0225 GM701
        bias = torch.zeros(3, requires_grad=False)  # no gradient asked: traced
        return x * weight + bias


def inputs():
    return (torch.ones(3),)
