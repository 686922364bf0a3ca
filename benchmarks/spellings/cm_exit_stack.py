"""`contextlib.ExitStack`: entered by `with ... as stack` and given managers with `enter_context`,
or built and used without a `with`; near miss: an ExitStack entered with nothing pushed."""

import contextlib

import torch
from torch import nn


class ProbeWithAs(nn.Module):
    def forward(self, x):
        x = x * 2
        with contextlib.ExitStack() as stack:
            stack.enter_context(torch.no_grad())
            x = x + 4
        return x


class ProbeBuilt(nn.Module):
    def forward(self, x):
        x = x * 2
        stack = contextlib.ExitStack()
        stack.enter_context(torch.no_grad())
        x = x + 4
        stack.close()
        return x


class ProbeNearMissEmpty(nn.Module):
    def forward(self, x):
        x = x * 2
        with contextlib.ExitStack():
            x = x + 4
        return x


def inputs():
    return (torch.randn(4),)
