"""GB0125 Unsupported Tensor.requires_grad_() call: on an input that does not require grad (GM701)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        y = y + 1
        x.requires_grad_()  # graph-break: GB0125 GM701
        return y + x


def inputs():
    return (torch.ones(3),)
