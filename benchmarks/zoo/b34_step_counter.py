"""A Python step counter on the module and a data-dependent argmax comparison."""

import torch
from torch import nn


class EMA(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("avg", torch.zeros(4))
        self.every = 2

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.every > 1:
            self.avg.mul_(0.9).add_(0.1 * x.mean(0))
        winner = x.mean(0).argmax()
        if winner == 3:
            return self.avg * 2
        return self.avg


def case():
    return EMA(), (torch.randn(5, 4),)
