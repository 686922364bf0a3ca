"""0-d integer tensors by construction used as indices, and NumPy arrays made from tensors fed to
data-dependent NumPy operations (issue 27's data-dependent operator family); near misses: a 1-d
index (it gathers), a graph input as the index (Dynamo specializes on it)."""

import torch
from torch import nn

_ONE = torch.tensor(1)  # an input of the frame, of a rank the source does not show


class ProbeWhereLast(nn.Module):
    def forward(self, x):
        y = x * 2
        last = torch.where(x > 0)[0][-1]
        return y[last]


class ProbeMaxOfFlat(nn.Module):
    def forward(self, x):
        y = x * 2
        best = x.flatten().max(0).indices
        return y.flatten()[best]


class ProbeFactoryScalar(nn.Module):
    def forward(self, x):
        y = x * 2
        u = torch.rand(())
        i = (u * 3).long()
        return y[i]


class ProbeNearMissFactoryVector(nn.Module):
    def forward(self, x):
        y = x * 2
        u = torch.rand(1)
        i = (u * 3).long()
        return y[i]


class ProbeTensorOfInt(nn.Module):
    def forward(self, x):
        y = x * 2
        return y[torch.tensor(2)]


class ProbeSqueezedDraw(nn.Module):
    def forward(self, x):
        y = x * 2
        i = torch.randint(0, 3, (1,)).squeeze()
        return y[i]


class ProbeBoolScalarIndex(nn.Module):
    def forward(self, x):
        y = x * 2
        return y[x.sum() > 0]


class ProbeInputIndex(nn.Module):
    def forward(self, x, i=_ONE):
        y = x * 2
        return y[i + 1]


class ProbeNearMissInputItself(nn.Module):
    def forward(self, x, i=_ONE):
        y = x * 2
        return y[i]


class ProbeArgmaxDimOfFlat(nn.Module):
    def forward(self, x):
        y = x * 2
        return y[x.flatten().argmax(0)]


class ProbeTorchMaxDimOfArange(nn.Module):
    def forward(self, x):
        y = x * 2
        _values, best = torch.max(torch.arange(4) * 2, dim=0)
        return y[best]


class ProbeSumDimOfFlat(nn.Module):
    def forward(self, x):
        y = x * 2
        return y[(x > 0).flatten().sum(-1)]


class ProbeNearMissArgmaxDimOfUnknown(nn.Module):
    def forward(self, x):
        y = x * 2
        return y[x.view(2, 2).argmax(0)]


class ProbeZerosScalar(nn.Module):
    def forward(self, x):
        y = x * 2
        return y[torch.zeros((), dtype=torch.long)]


class ProbeRandnScalar(nn.Module):
    def forward(self, x):
        y = x * 2
        return y[torch.randn([]).abs().long().clamp(0, 3)]


class ProbeFullScalar(nn.Module):
    def forward(self, x):
        y = x * 2
        return y[torch.full((), 2)]


class ProbeScalarTensor(nn.Module):
    def forward(self, x):
        y = x * 2
        return y[torch.scalar_tensor(2, dtype=torch.long)]


class ProbeNearMissTensorOfLocalInt(nn.Module):
    def forward(self, x):
        y = x * 2
        n = x.shape[0] - 1
        return y[torch.tensor(n)]


class ProbeSqueezedRand(nn.Module):
    def forward(self, x):
        y = x * 2
        return y[(torch.rand(1) * 3).long().squeeze()]


def inputs():
    return (torch.tensor([1.0, -2.0, 3.0, 0.5]),)
