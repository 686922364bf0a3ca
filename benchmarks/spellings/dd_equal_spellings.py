"""Spellings of `aten.equal` / `allclose` reads beyond `torch.equal(a, b)`: the unbound method, the
method form of `allclose`, through a module-level alias (of the function, of `torch.Tensor`); near
misses: equality of shapes, a tensor-valued torch function through the same aliases."""

import torch
from torch import nn

same_values = torch.equal
close_values = torch.isclose
T = torch.Tensor


class ProbeUnbound(nn.Module):
    def forward(self, x):
        y = x * 2
        flag = torch.Tensor.equal(x, y)
        return y, flag


class ProbeAllcloseMethod(nn.Module):
    def forward(self, x):
        y = x * 2
        flag = y.allclose(x)
        return y, flag


class ProbeAlias(nn.Module):
    def forward(self, x):
        y = x * 2
        flag = same_values(x, y)
        return y, flag


class ProbeTensorAlias(nn.Module):
    def forward(self, x):
        y = x * 2
        flag = T.equal(x, y)
        return y, flag


class ProbeNearMissAliases(nn.Module):
    def forward(self, x):
        y = T.add(x, 1)
        return y, close_values(x, y)


class ProbeNearMissShapes(nn.Module):
    def forward(self, x):
        y = x * 2
        return y, x.shape == y.shape


def inputs():
    return (torch.randn(4),)
