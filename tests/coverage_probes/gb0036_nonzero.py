"""GB0036 Dynamic shape operator: `torch.nonzero` (GM501)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        idx = torch.nonzero(x > 0)  # graph-break: GB0036 GM501
        return idx + 1


def inputs():
    return (torch.ones(3),)
