"""GB0208 torch.* op returned non-Tensor: `Tensor.is_signed()` (GM604)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        signed = x.is_signed()  # graph-break: GB0208 GM604
        return x + signed


def inputs():
    return (torch.ones(3),)
