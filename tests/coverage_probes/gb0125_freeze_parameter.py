"""GB0125 Unsupported Tensor.requires_grad_() call: freezing a submodule's parameters in traced
code (`p.requires_grad_(False)`): a parameter is a graph input that requires grad (GM701)."""

import torch


class Probe(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.teacher = torch.nn.Linear(3, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        self.teacher.weight.requires_grad_(False)  # graph-break: GB0125 GM701
        return self.teacher(x)


def inputs():
    return (torch.ones(3),)
