"""GB0159 Unsupported ndarray.__version__ access: on a NumPy array made in traced code (GM632)."""

import numpy as np
import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        x = x + 1
        values = np.ones(3)
        version = values.__version__ if hasattr(values, "__version__") else 0  # graph-break: GB0159 GM632
        return x - version


def inputs():
    return (torch.ones(3),)
