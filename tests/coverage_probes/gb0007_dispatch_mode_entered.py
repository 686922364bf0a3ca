"""GB0007 Attempted to call function marked as skipped: `with` on a TorchDispatchMode subclass of
the tree, whose `__enter__` is torch's, in a module Dynamo skips (GM643)."""

import torch
from torch.utils._python_dispatch import TorchDispatchMode


class Passthrough(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


class Probe(torch.nn.Module):
    def forward(self, x):
        x = x * 2
        with Passthrough():  # graph-break: GB0007 GM643
            x = x + 1
        return x


def inputs():
    return (torch.ones(3),)
