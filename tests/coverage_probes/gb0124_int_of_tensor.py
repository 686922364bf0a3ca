"""GB0124 Unsupported Tensor.item() call with capture_scalar_outputs=False: `int(tensor)` (GM302)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        k = int(x.sum())  # graph-break: GB0124 GM302
        return x + k


def inputs():
    return (torch.ones(3),)
