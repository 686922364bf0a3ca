"""`warnings.warn` about a deprecated argument, inside a compiled helper."""

import warnings

import torch
from torch import nn


def scaled(x: torch.Tensor, scale=None) -> torch.Tensor:
    y = x * 2
    if scale is None:
        warnings.warn("`scale=None` is deprecated, pass 1.0", FutureWarning)
        scale = 1.0
    return y * scale


class Head(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return scaled(x).sum(-1)


def case():
    return Head(), (torch.randn(2, 5),)
