"""`torch.equal` / `allclose` read as a Python bool, the way libraries test for it."""

import torch
from torch import nn


def same(a, b):
    return torch.equal(a, b)


class ProbeIf(nn.Module):
    def forward(self, x):
        y = x * 2
        if torch.equal(x, y):
            y = y + 1
        return y


class ProbeNot(nn.Module):
    def forward(self, x):
        y = x * 2
        if not torch.allclose(x, y):
            y = y + 1
        return y


class ProbeBound(nn.Module):
    def forward(self, x):
        y = x * 2
        unchanged = torch.equal(x, y)
        if unchanged:
            y = y + 1
        return y


class ProbeHelper(nn.Module):
    def forward(self, x):
        y = x * 2
        if same(x, y):
            y = y + 1
        return y


class ProbeMethod(nn.Module):
    def forward(self, x):
        y = x * 2
        if x.equal(y):
            y = y + 1
        return y


class ProbeTernary(nn.Module):
    def forward(self, x):
        y = x * 2
        return y if torch.equal(x, y) else y + 1


class ProbeReturned(nn.Module):
    def forward(self, x):
        y = x * 2
        return y, torch.equal(x, y)


class ProbeNearMissShape(nn.Module):
    def forward(self, x):
        y = x * 2
        if x.shape == y.shape:
            y = y + 1
        return y


def inputs():
    return (torch.randn(4),)
