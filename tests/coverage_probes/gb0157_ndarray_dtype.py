"""GB0157 Unsupported ndarray attribute access: `.dtype` of a NumPy array made in traced code (GM632)."""

import numpy as np
import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        x = x + 1
        values = np.ones(3)
        kind = values.dtype  # graph-break: GB0157 GM632
        return x - len(str(kind))


def inputs():
    return (torch.ones(3),)
