"""Objects of classes that define `__getattribute__`, `__getattr__` or `__setattr__`: built in the
frame, held in `self`, their attributes read."""

import torch
from torch import nn


class Guarded:
    def __init__(self):
        self.k = 2.0

    def __getattribute__(self, name):
        return super().__getattribute__(name)


class GuardedObjectCall:
    def __init__(self):
        self.k = 2.0

    def __getattribute__(self, name):
        return object.__getattribute__(self, name)


class Fallback:
    def __init__(self):
        self.k = 2.0

    def __getattr__(self, name):
        return 1.0


class Frozen:
    def __init__(self):
        object.__setattr__(self, "k", 2.0)

    def __setattr__(self, name, value):
        raise AttributeError(name)


class ProbeBuildGuarded(nn.Module):
    def forward(self, x):
        x = x * 2
        g = Guarded()
        return x * g.k


class ProbeBuildGuardedObjectCall(nn.Module):
    def forward(self, x):
        x = x * 2
        g = GuardedObjectCall()
        return x * g.k


class ProbeHeldGuarded(nn.Module):
    def __init__(self):
        super().__init__()
        self.g = Guarded()

    def forward(self, x):
        x = x * 2
        return x * self.g.k


class ProbeBuildFallback(nn.Module):
    def forward(self, x):
        x = x * 2
        f = Fallback()
        return x * f.k * f.other


class ProbeBuildFrozen(nn.Module):
    def forward(self, x):
        x = x * 2
        f = Frozen()
        return x * f.k


def inputs():
    return (torch.randn(4),)
