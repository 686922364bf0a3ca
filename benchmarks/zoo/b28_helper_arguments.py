"""The same kind of helper called with a Python int (static) and with a tensor (breaks)."""

import torch
from torch import nn


def attention_scale(length, base=64):
    if length > base:
        return 1.0 / length
    return 1.0


def gate(score):
    if score > 0.5:
        return score
    return score * 0


class Scorer(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scale = attention_scale(x.shape[1])
        y = x * scale
        return gate(y.mean()) + y.sum()


def case():
    return Scorer(), (torch.randn(2, 8),)
