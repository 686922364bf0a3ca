"""Refused context managers reached through a helper, a conditional, a held attribute."""

import contextlib

import torch
from torch import nn


def rng_scope(seed):
    return torch.random.fork_rng()


class ProbeHelperReturns(nn.Module):
    def forward(self, x):
        x = x * 2
        with rng_scope(0):
            x = x + 1
        return x


class ProbeMethodReturns(nn.Module):
    def _scope(self):
        return torch.random.fork_rng()

    def forward(self, x):
        x = x * 2
        with self._scope():
            x = x + 1
        return x


class ProbeConditional(nn.Module):
    def forward(self, x, seeded=True):
        x = x * 2
        ctx = torch.random.fork_rng() if seeded else contextlib.nullcontext()
        with ctx:
            x = x + 1
        return x


class ProbeNearMissHelperNoGrad(nn.Module):
    def _scope(self):
        return torch.no_grad()

    def forward(self, x):
        x = x * 2
        with self._scope():
            x = x + 1
        return x


def inputs():
    return (torch.randn(4),)
