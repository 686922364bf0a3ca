"""Builtins given tensors (each in its own compiled module); eager runs every one."""

import torch
from torch import nn


class ProbeMaxOfTensors(nn.Module):
    def forward(self, x):
        x = x * 2
        return max(x.sum(), x.mean()) + x


class ProbeMinWithNumber(nn.Module):
    def forward(self, x):
        x = x * 2
        return min(x.sum(), 1.0) + x


class ProbeSortedTensor(nn.Module):
    def forward(self, x):
        x = x * 2
        return torch.stack(sorted(x)) + x


class ProbeReversed(nn.Module):
    def forward(self, x):
        x = x * 2
        return torch.stack(list(reversed(x))) + x


class ProbeHash(nn.Module):
    def forward(self, x):
        x = x * 2
        return x + (hash(x) % 2)


class ProbeMaxOfOneD(nn.Module):
    def forward(self, x):
        x = x * 2
        return max(x) + x


class ProbeSumStart(nn.Module):
    def forward(self, x):
        x = x * 2
        return sum([x, x], torch.zeros(4))


class ProbeHex(nn.Module):
    def forward(self, x):
        x = x * 2
        return x + len(hex(x.shape[0]))


class ProbeAbsObject(nn.Module):
    def forward(self, x):
        x = x * 2
        return abs(x) + divmod(x.shape[0], 3)[0]


def inputs():
    return (torch.randn(4),)
