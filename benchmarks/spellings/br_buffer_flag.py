"""Branching on a 0-d buffer: an initialised flag (ActNorm), a counter, a random draw."""

import torch
from torch import nn


class Probe(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("initialized", torch.tensor(False))
        self.register_buffer("count", torch.zeros(()))
        self.p = 0.5

    def forward(self, x):
        x = x * 2
        if not self.initialized:
            x = x + 1
        if self.count > 0:
            x = x - 1
        if torch.rand(1) < self.p:
            x = x * 3
        cond = x.sum() > 0
        if cond:
            x = x / 2
        y = min(x.max(), 1.0)
        return x + y


def inputs():
    return (torch.randn(4),)
