"""An element of a 1-d result as an index: `topk` indices, `sort`'s permutation, `max(dim)` of a
1-d tensor, `multinomial`, `randint(..., (1,))`; near miss: the 1-d result itself (gathers)."""

import torch
from torch import nn


class ProbeTopk(nn.Module):
    def forward(self, x, p):
        x = x * 2
        i = x.topk(2).indices[0]
        return x[i]


class ProbeSort(nn.Module):
    def forward(self, x, p):
        x = x * 2
        j = torch.sort(x)[1][0]
        return x[j]


class ProbeMaxDim(nn.Module):
    def forward(self, x, p):
        x = x * 2
        _, k = x.max(0)
        return x[k]


class ProbeMultinomial(nn.Module):
    def forward(self, x, p):
        x = x * 2
        m = torch.multinomial(p, 1)[0]
        return x[m]


class ProbeRandintElement(nn.Module):
    def forward(self, x, p):
        x = x * 2
        n = torch.randint(0, 4, (1,))[0]
        return x[n]


class ProbeNearMissRandint(nn.Module):
    def forward(self, x, p):
        x = x * 2
        return x[torch.randint(0, 4, (1,))]


def inputs():
    return (torch.randn(4), torch.ones(4))
