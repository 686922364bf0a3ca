"""Elements of a tensor 1-d by construction used as indices: a flattened tensor (`flatten()`,
`view(-1)`, `reshape(-1)`, `torch.flatten(x)`, `ravel()`), its `argsort()`, `sort()` / `topk()`
permutation, and a loop over one. Near misses: the whole 1-d index (gathers), a row of a 2-d
argsort, `flatten(1)` (not 1-d)."""

import torch
from torch import nn


class ProbeArgsortElement(nn.Module):
    def forward(self, x):
        flat = x.flatten()
        order = flat.argsort()
        return flat[order[0]]


class ProbeTopkIndicesElement(nn.Module):
    def forward(self, x):
        flat = x.view(-1)
        top = flat.topk(2).indices
        return flat[top[0]] * 2


class ProbeSortField(nn.Module):
    def forward(self, x):
        flat = torch.flatten(x)
        first = flat.sort().indices[0]
        return flat[first] + flat[flat.sort()[1][-1]]


class ProbeLoopOverPermutation(nn.Module):
    def forward(self, x):
        y = torch.zeros_like(x)
        for i in x.reshape(-1).argsort()[:2]:
            y[..., i % 4] = x[..., i % 4]
        return y


class ProbeNearMissGather(nn.Module):
    def forward(self, x):
        flat = x.ravel()
        order = flat.argsort()
        return flat[order], flat[order[:2]]


class ProbeNearMissRows(nn.Module):
    def forward(self, x):
        rows = x.view(2, -1).argsort()
        wide = x.flatten(1).argsort()
        return x.view(2, -1)[:, rows[0]], wide[0]


def inputs():
    return (torch.randn(2, 4),)
