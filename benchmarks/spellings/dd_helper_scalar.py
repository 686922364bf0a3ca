"""A 0-d index returned by a helper (a module function, a method, a property); near misses: a
helper returning a 1-d index (gathers) or one that returns a 0-d tensor on one path only."""

import torch
from torch import nn


def best(scores):
    return scores.argmax()


def best_rows(scores):
    return scores.argmax(0, keepdim=True)


def best_or_first(scores, first):
    if first:
        return 0
    return scores.argmax()


class ProbeFunction(nn.Module):
    def forward(self, x):
        x = x * 2
        i = best(x[0])
        return x[:, i]


class ProbeInline(nn.Module):
    def forward(self, x):
        x = x * 2
        return x[:, best(x[1])]


class ProbeMethod(nn.Module):
    def _pick(self, x):
        return x.sum(0).argmax()

    def forward(self, x):
        x = x * 2
        j = self._pick(x)
        return x[:, j]


class ProbeNearMissKeepdim(nn.Module):
    def forward(self, x):
        x = x * 2
        return x[:, best_rows(x[0])]


class ProbeNearMissMixed(nn.Module):
    def forward(self, x):
        x = x * 2
        return x[:, best_or_first(x[0], True)]


def inputs():
    return (torch.randn(3, 3),)
