"""Values a helper returns in a container, read as numbers; near misses: a helper's Python ints."""

import torch
from torch import nn


def stats(x):
    return x.sum(), x.numel()


def counts(x):
    return {"positive": (x > 0).sum(), "size": x.shape[0]}


class ProbeTupleCast(nn.Module):
    def forward(self, x):
        x = x * 2
        total, _n = stats(x)
        return x * float(total)


class ProbeTupleItem(nn.Module):
    def forward(self, x):
        x = x * 2
        total, _ = stats(x)
        return x * total.item()


class ProbeDictCast(nn.Module):
    def forward(self, x):
        x = x * 2
        c = counts(x)
        return x[: int(c["positive"])]


class ProbeElementIndex(nn.Module):
    def forward(self, x):
        x = x * 2
        return x * float(stats(x)[0])


class ProbeNearMissNumber(nn.Module):
    def forward(self, x):
        x = x * 2
        _, n = stats(x)
        c = counts(x)
        scale = int(n)
        return x * scale + int(c["size"])


def inputs():
    return (torch.tensor([1.0, -1.0, 2.0, 3.0]),)
