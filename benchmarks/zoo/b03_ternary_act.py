"""Activation chosen per batch with a conditional expression on the tensor's maximum."""

import torch
import torch.nn.functional as F


@torch.compile
def smart_activation(x: torch.Tensor, negative_slope: float = 0.1) -> torch.Tensor:
    y = x * 2
    y = F.leaky_relu(y, negative_slope) if y.max() > 1 else torch.tanh(y)
    width = 4 if x.ndim > 1 else 2  # static
    return y[..., :width]


def case():
    return smart_activation, (torch.randn(3, 6),)
