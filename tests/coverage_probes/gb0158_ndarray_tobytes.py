"""GB0158 Unsupported ndarray method call: `tobytes()` on a NumPy array made in traced code (GM632)."""

import numpy as np
import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        x = x + 1
        sizes = np.ones(3)
        key = sizes.tobytes()  # graph-break: GB0158 GM632
        return x - len(key)


def inputs():
    return (torch.ones(3),)
