"""A 0-d integer tensor made from tensor values (`n = (x > 0).sum()`) where torch functions want a
Python number: sizes, ends, offsets, pads, fill values; near misses where the tensor overload traces."""

import torch
import torch.nn.functional as F
from torch import nn


class ProbeArangeEnd(nn.Module):
    def forward(self, x):
        n = (x > 0).sum()
        return torch.arange(n) * x.sum()


class ProbeRandintHigh(nn.Module):
    def forward(self, x):
        n = (x > 0).sum() + 1
        return x[torch.randint(0, n, (3,))]


class ProbePadByTensor(nn.Module):
    def forward(self, x):
        n = (x > 0).sum()
        return F.pad(x, (0, n))


class ProbeTensorOfScalars(nn.Module):
    def forward(self, x):
        a = x.sum()
        b = x.max()
        return torch.tensor([a, b]) * 2


class ProbeFullFill(nn.Module):
    def forward(self, x):
        return torch.full((3,), x.sum()) + 1


class ProbeTrilDiagonal(nn.Module):
    def forward(self, x):
        n = (x > 0).sum()
        return torch.tril(x.view(2, 2), diagonal=n)


class ProbeTorchRoll(nn.Module):
    def forward(self, x):
        n = (x > 0).sum()
        return torch.roll(x, n)


class ProbeTorchNarrow(nn.Module):
    def forward(self, x):
        n = (x > 0).sum() - 1
        return torch.narrow(x, 0, n, 1)


class ProbeDiagOffset(nn.Module):
    def forward(self, x):
        n = (x > 0).sum() - 2
        return torch.diag(x.view(2, 2), n)


class ProbeUnfoldSize(nn.Module):
    def forward(self, x):
        n = (x > 0).sum()
        return x.unfold(0, n, 1)


class ProbeSplitSize(nn.Module):
    def forward(self, x):
        n = (x > 0).sum()
        return torch.split(x, n)[0]


class ProbeInterpolateSize(nn.Module):
    def forward(self, x):
        n = (x > 0).sum() * 2
        return F.interpolate(x.view(1, 1, 4), size=n)


class ProbeNearMissFillTensor(nn.Module):
    def forward(self, x):
        return x.clone().fill_(x.sum()) + x.masked_fill(x > 0, x.sum()) + torch.clamp(x, min=x.mean())


class ProbeNearMissIndexSelect(nn.Module):
    def forward(self, x):
        return x.index_select(0, x.argmax())


def inputs():
    return (torch.tensor([1.0, -2.0, 3.0, 0.5]),)
