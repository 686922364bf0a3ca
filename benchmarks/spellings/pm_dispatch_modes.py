"""Modes entered in traced code: a TorchDispatchMode subclass of the tree (its `__init__`/`__enter__`
are torch's, in a module Dynamo skips), with its own `__init__` too; a TorchFunctionMode subclass."""

import torch
from torch import nn
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode


class Passthrough(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


class Counting(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.count = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.count += 1
        return func(*args, **(kwargs or {}))


class Functional(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


class ProbeDispatchMode(nn.Module):
    def forward(self, x):
        x = x * 2
        with Passthrough():
            x = x + 1
        return x


class ProbeDispatchModeOwnInit(nn.Module):
    def forward(self, x):
        x = x * 2
        with Counting():
            x = x + 1
        return x


class ProbeDispatchModeBuiltFirst(nn.Module):
    def forward(self, x):
        x = x * 2
        mode = Passthrough()
        with mode:
            x = x + 1
        return x


class ProbeFunctionMode(nn.Module):
    def forward(self, x):
        x = x * 2
        with Functional():
            x = x + 1
        return x


def inputs():
    return (torch.randn(4),)
