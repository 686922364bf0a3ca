"""Values Dynamo must rebuild at a break or on return: iterators, a method of a tensor subclass."""

import torch
from torch import nn


class Wrapped(torch.Tensor):
    def plain(self):
        print("unwrap")
        return self.as_subclass(torch.Tensor)


class ProbeReturnZip(nn.Module):
    def forward(self, x):
        x = x * 2
        return zip(x, x)


class ProbeReturnMap(nn.Module):
    def forward(self, x):
        x = x * 2
        return map(torch.sin, x)


class ProbeLiveIteratorAtBreak(nn.Module):
    def forward(self, x):
        x = x * 2
        pairs = zip([x, x], [x, x])
        print("break")
        return [a + b for a, b in pairs]


class ProbeLiveGeneratorAtBreak(nn.Module):
    def forward(self, x):
        x = x * 2
        parts = (t * 2 for t in [x, x])
        print("break")
        return sum(parts)


class ProbeSubclassMethod(nn.Module):
    def forward(self, x):
        x = x * 2
        w = x.as_subclass(Wrapped)
        return w.plain() + 1


class ProbeNearMissListAtBreak(nn.Module):
    def forward(self, x):
        x = x * 2
        pairs = list(zip([x, x], [x, x]))
        print("break")
        return [a + b for a, b in pairs]


def inputs():
    return (torch.randn(4),)
