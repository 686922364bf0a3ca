"""GB0124 Unsupported Tensor.item() call with capture_scalar_outputs=False: `.item()` (GM301)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        peak = x.max().item()  # graph-break: GB0124 GM301
        return x / peak


def inputs():
    return (torch.ones(3),)
