"""A count computed from tensor values as a size or a start."""

import torch
from torch import nn


class ProbeZeros(nn.Module):
    def forward(self, x):
        x = x * 2
        n = (x > 0).sum()
        return torch.zeros(n)


class ProbeNewZeros(nn.Module):
    def forward(self, x):
        x = x * 2
        n = (x > 0).sum()
        return x.new_zeros(n)


class ProbeArange(nn.Module):
    def forward(self, x):
        x = x * 2
        n = (x > 0).sum()
        return torch.arange(n)


class ProbeNarrow(nn.Module):
    def forward(self, x):
        x = x * 2
        return x.narrow(0, x.argmax(), 1)


def inputs():
    return (torch.tensor([1.0, -1.0, 2.0, 3.0]),)
