"""Values Dynamo must rebuild where the compiled frame returns or breaks (GB0092 and kin):
generators, iterators, views, bound methods; near misses it rebuilds."""

import functools

import torch
from torch import nn


def pairs(x):
    yield x
    yield x + 1


class ProbeReturnGeneratorCall(nn.Module):
    def forward(self, x):
        x = x * 2
        return pairs(x)


class ProbeReturnGeneratorExpression(nn.Module):
    def forward(self, x):
        x = x * 2
        return (t + 1 for t in [x, x])


class ProbeReturnListIterator(nn.Module):
    def forward(self, x):
        x = x * 2
        return iter([x, x])


class ProbeReturnEnumerate(nn.Module):
    def forward(self, x):
        x = x * 2
        return enumerate([x, x])


class ProbeReturnItems(nn.Module):
    def forward(self, x):
        x = x * 2
        d = {"a": x}
        return d.items()


class ProbeNearMissReturnDict(nn.Module):
    def forward(self, x):
        x = x * 2
        return {"a": x}


class ProbeReturnPartialOfLambda(nn.Module):
    def forward(self, x):
        x = x * 2
        return functools.partial(lambda a, b: a + b, x)


class ProbeNearMissReturnPartialOfGlobal(nn.Module):
    def forward(self, x):
        x = x * 2
        return functools.partial(torch.add, x)


class ProbeGeneratorAliveAtBreak(nn.Module):
    def forward(self, x):
        x = x * 2
        g = pairs(x)
        print("break")
        return next(g) + 1


class ProbeEnumerateAliveAtBreak(nn.Module):
    def forward(self, x):
        x = x * 2
        e = enumerate([x, x])
        print("break")
        return [t + i for i, t in e]


class ProbeMapAliveAtBreak(nn.Module):
    def forward(self, x):
        x = x * 2
        m = map(torch.sin, [x, x])
        print("break")
        return list(m)


class ProbeReturnMap(nn.Module):
    def forward(self, x):
        x = x * 2
        return map(torch.sin, [x, x])


class ProbeReturnZipOfLists(nn.Module):
    def forward(self, x):
        x = x * 2
        return zip([x], [x])


class ProbeNearMissReturnRange(nn.Module):
    def forward(self, x):
        x = x * 2
        return x, range(3)


def inputs():
    return (torch.randn(4),)
