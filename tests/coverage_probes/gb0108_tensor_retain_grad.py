"""GB0108 Tensor.retain_grad() with AOTDispatcher: keeping the gradient of an intermediate (GM621)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = x * 2
        hidden.retain_grad()  # graph-break: GB0108 GM621
        return hidden * 3


def inputs():
    return (torch.ones(3, requires_grad=True),)
