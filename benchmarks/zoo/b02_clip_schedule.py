"""Adaptive clipping with an if/elif chain on tensor statistics."""

import torch
from torch import nn


class AdaptiveClip(nn.Module):
    def __init__(self, threshold: float = 3.0) -> None:
        super().__init__()
        self.threshold = threshold

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scale = x.abs().amax()
        if scale > self.threshold:
            x = x / scale * self.threshold
        elif (x < 0).any():
            x = x.clamp(min=-self.threshold)
        else:
            x = x * 1.0
        return x * 2


def case():
    return AdaptiveClip(), (torch.randn(16) * 5,)
