"""Iterating a 1-d buffer or attribute and indexing with the element (flowtorch's permutation)."""

import torch
from torch import nn


class ProbeBuffer(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("order", torch.arange(3, -1, -1))
        self.perm = torch.randperm(4)

    def forward(self, x):
        y = torch.zeros_like(x)
        for i in self.order:
            y[..., i] = x[..., i] * 2
        return y


class ProbeElement(ProbeBuffer):
    def forward(self, x):
        y = x * 2
        for k in range(4):
            y[..., k] = y[..., k] + x[..., self.perm[k]]
        return y


class ProbeLocal(ProbeBuffer):
    def forward(self, x):
        y = x * 2
        perm = torch.randperm(4)
        for k in range(4):
            y[..., k] = y[..., k] + x[..., perm[k]]
        return y


def inputs():
    return (torch.randn(2, 4),)
