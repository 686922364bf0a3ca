"""Iterators built in the frame and used after a break: the frame Dynamo resumes in gets them as
inputs, built outside it (GM653's held iterators); near misses: lists, iterators used before."""

import itertools

import torch
from torch import nn


class ProbeMapAfterBreak(nn.Module):
    def forward(self, x):
        x = x * 2
        m = map(torch.sin, [x, x])
        print("break")
        return list(m)


class ProbeMapNextAfterBreak(nn.Module):
    def forward(self, x):
        x = x * 2
        m = map(torch.sin, [x, x])
        print("break")
        return next(m) + 1


class ProbeZipNextAfterBreak(nn.Module):
    def forward(self, x):
        x = x * 2
        z = zip([x, x], [x, x])
        print("break")
        a, b = next(z)
        return a + b


class ProbeZipForAfterBreak(nn.Module):
    def forward(self, x):
        x = x * 2
        z = zip([x, x], [x, x])
        print("break")
        for a, b in z:
            x = x + a + b
        return x


class ProbeFilterAfterBreak(nn.Module):
    def forward(self, x):
        x = x * 2
        f = filter(lambda t: t is not None, [x, x])
        print("break")
        return sum(f)


class ProbeIterListNextAfterBreak(nn.Module):
    def forward(self, x):
        x = x * 2
        it = iter([x, x])
        print("break")
        return next(it) + 1


class ProbeChainAfterBreak(nn.Module):
    def forward(self, x):
        x = x * 2
        c = itertools.chain([x], [x])
        print("break")
        return list(c)


class ProbeEnumerateNextAfterBreak(nn.Module):
    def forward(self, x):
        x = x * 2
        e = enumerate([x, x])
        print("break")
        i, t = next(e)
        return t + i


class ProbeReversedAfterBreak(nn.Module):
    def forward(self, x):
        x = x * 2
        r = reversed([x, x])
        print("break")
        return list(r)


class ProbeNearMissListAfterBreak(nn.Module):
    def forward(self, x):
        x = x * 2
        m = list(map(torch.sin, [x, x]))
        print("break")
        return m


def inputs():
    return (torch.randn(4),)
