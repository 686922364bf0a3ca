"""GB0033 Data dependent operator: `np.random.randint` (GM604)."""

import numpy as np
import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        k = np.random.randint(0, 3)  # graph-break: GB0033 GM604
        return x + k


def inputs():
    return (torch.ones(3),)
