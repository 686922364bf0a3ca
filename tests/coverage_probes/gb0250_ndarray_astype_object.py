"""GB0250 ndarray.astype(object): on a NumPy array made in traced code (GM632)."""

import numpy as np
import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        x = x + 1
        halves = np.zeros(3).astype(np.float32)  # a numeric dtype: traced
        np.zeros(3).astype(object)  # graph-break: GB0250 GM632
        return x + torch.as_tensor(halves.sum())


def inputs():
    return (torch.ones(3),)
