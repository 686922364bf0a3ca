"""`next()` on iterators made in traced code: zip, map, enumerate, iter of a dict, a generator;
and iterators crossing a break."""

import itertools

import torch
from torch import nn


class ProbeNextZip(nn.Module):
    def forward(self, x):
        x = x * 2
        a, b = next(zip([x, x], [x, x]))
        return a + b


class ProbeNextZipOfTensor(nn.Module):
    def forward(self, x):
        x = x * 2
        a, b = next(zip(x, x))
        return a + b + x


class ProbeNextMap(nn.Module):
    def forward(self, x):
        x = x * 2
        return next(map(torch.sin, [x, x]))


class ProbeNextEnumerate(nn.Module):
    def forward(self, x):
        x = x * 2
        i, t = next(enumerate([x, x]))
        return t + i


class ProbeNextIterDict(nn.Module):
    def forward(self, x):
        d = {"a": x, "b": x * 2}
        k = next(iter(d))
        return d[k] + 1


class ProbeNextIterValues(nn.Module):
    def forward(self, x):
        d = {"a": x, "b": x * 2}
        return next(iter(d.values())) + 1


class ProbeNextGenerator(nn.Module):
    def forward(self, x):
        x = x * 2
        return next(t for t in [x, x] if t is not None) + 1


class ProbeNextIterParameters(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        x = x * 2
        return x.to(next(self.parameters()).dtype) + 1


class ProbeNextChain(nn.Module):
    def forward(self, x):
        x = x * 2
        return next(itertools.chain([x], [x])) + 1


class ProbeNextZipDefault(nn.Module):
    def forward(self, x):
        x = x * 2
        pair = next(zip([x], [x]), None)
        return pair[0] + 1


class ProbeNextReversed(nn.Module):
    def forward(self, x):
        x = x * 2
        return next(reversed([x, x])) + 1


class ProbeNextIslice(nn.Module):
    def forward(self, x):
        x = x * 2
        return next(itertools.islice([x, x], 1, None)) + 1


class ProbeNextZipStrict(nn.Module):
    def forward(self, x):
        x = x * 2
        a, b = next(zip([x, x], [x, x], strict=True))
        return a + b


def inputs():
    return (torch.randn(4),)
