"""GB0206 setattr() on Tensor.requires_grad: `t.requires_grad = False` on a parameter in traced
code (GM701)."""

import torch


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.scale = torch.nn.Parameter(torch.ones(3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        self.scale.requires_grad = False  # graph-break: GB0206 GM701
        return x * self.scale


def inputs():
    return (torch.ones(3),)
