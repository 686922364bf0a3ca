"""GB0294 attempted to trace numpy function unsupported by PyTorch: `np.random.default_rng` (GM604)."""

import numpy as np
import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        rng = np.random.default_rng(0)  # graph-break: GB0294 GM604
        return x + len(str(type(rng)))


def inputs():
    return (torch.ones(3),)
