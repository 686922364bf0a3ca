"""GB0033 Data dependent operator: `.item()` of a NumPy array's element in traced code (GM301)."""

import numpy as np
import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        weights = np.linspace(0.0, 1.0, 4)
        scale = weights[1].item()  # graph-break: GB0033 GM301
        return x * scale


def inputs():
    return (torch.ones(3),)
