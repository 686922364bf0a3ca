"""GB0294 attempted to trace numpy function unsupported by PyTorch: `np.asanyarray`, a NumPy function torch._numpy lacks (GM604)."""

import numpy as np
import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        index = np.asanyarray(np.arange(3))  # graph-break: GB0294 GM604
        return x[torch.as_tensor(index)]


def inputs():
    return (torch.ones(3),)
