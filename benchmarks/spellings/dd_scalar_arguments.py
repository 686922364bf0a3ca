"""0-d tensors where torch functions take Python numbers: grid bounds, list elements, shifts."""

import torch
from torch import nn


class ProbeLinspaceBounds(nn.Module):
    def forward(self, x):
        x = x * 2
        return torch.linspace(x.min(), x.max(), 5)


class ProbeArangeBounds(nn.Module):
    def forward(self, x):
        x = x * 2
        return torch.arange(0, x.max(), 0.5)


class ProbeTensorOfScalars(nn.Module):
    def forward(self, x):
        x = x * 2
        return torch.tensor([x.min(), x.max()])


class ProbeRollShift(nn.Module):
    def forward(self, x):
        x = x * 2
        shift = torch.randint(-2, 2, ())
        return torch.roll(x, shifts=shift)


class ProbeRandintHigh(nn.Module):
    def forward(self, x):
        x = x * 2
        n = (x > 0).sum() + 1
        return torch.randint(0, n, (3,))


class ProbeTrilDiagonal(nn.Module):
    def forward(self, x):
        m = x.outer(x)
        return torch.tril(m, diagonal=(x > 0).sum())


class ProbeFullValue(nn.Module):
    def forward(self, x):
        x = x * 2
        return torch.full((3,), x.max())


class ProbeRollCount(nn.Module):
    def forward(self, x):
        x = x * 2
        n = (x > 0).sum()
        return torch.roll(x, n)


class ProbeRollMethodKeyword(nn.Module):
    def forward(self, x):
        x = x * 2
        n = (x > 0).sum()
        return x.roll(shifts=n)


def inputs():
    return (torch.tensor([1.0, -1.0, 2.0, 3.0]),)
