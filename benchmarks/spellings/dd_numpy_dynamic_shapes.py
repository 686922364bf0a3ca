"""NumPy's dynamic-shape functions under Dynamo's NumPy tracing (torch._numpy): on an array made
from a tensor, on a tensor passed as is, and on Python lists (near misses if they fold)."""

import numpy as np
import torch
from torch import nn


def _array(x):
    return (x * 2).numpy()


class ProbeNonzero(nn.Module):
    def forward(self, x):
        return torch.as_tensor(np.nonzero(_array(x))[0])


class ProbeArgwhere(nn.Module):
    def forward(self, x):
        return torch.as_tensor(np.argwhere(_array(x) > 0))


class ProbeFlatnonzero(nn.Module):
    def forward(self, x):
        return torch.as_tensor(np.flatnonzero(_array(x)))


class ProbeUnique(nn.Module):
    def forward(self, x):
        return torch.as_tensor(np.unique(_array(x)))


class ProbeUniqueCounts(nn.Module):
    def forward(self, x):
        _values, counts = np.unique(_array(x), return_counts=True)
        return torch.as_tensor(counts)


class ProbeWhereOne(nn.Module):
    def forward(self, x):
        return torch.as_tensor(np.where(_array(x) > 0)[0])


class ProbeBincount(nn.Module):
    def forward(self, x):
        return torch.as_tensor(np.bincount(_array(x).astype(np.int64).clip(0, 3)))


class ProbeRepeatByArray(nn.Module):
    def forward(self, x):
        a = _array(x)
        return torch.as_tensor(np.repeat(a, (a > 0).astype(np.int64)))


class ProbeOnTensor(nn.Module):
    def forward(self, x):
        return torch.as_tensor(np.unique(x * 2))


class ProbeOnTensorNonzero(nn.Module):
    def forward(self, x):
        return torch.as_tensor(np.nonzero(x * 2)[0])


class ProbeNearMissOnList(nn.Module):
    def forward(self, x):
        return x[torch.as_tensor(np.unique([2, 0, 2]))]


class ProbeNearMissOnListNonzero(nn.Module):
    def forward(self, x):
        return x[torch.as_tensor(np.nonzero([0, 1, 1])[0])]


class ProbeNearMissWhereThree(nn.Module):
    def forward(self, x):
        a = _array(x)
        return torch.as_tensor(np.where(a > 0, a, 0))


class ProbeNearMissRepeatInt(nn.Module):
    def forward(self, x):
        return torch.as_tensor(np.repeat(_array(x), 2))


def inputs():
    return (torch.tensor([1.0, -2.0, 3.0, 0.5]),)
