"""Branching on what a helper returns: a predicate over tensors, a property, a dataclass field;
near misses: a property over Python state, a property returning a tensor used as one."""

import dataclasses

import torch
from torch import nn


def converged(err, tol=1e-3):
    return err.abs().max() < tol


@dataclasses.dataclass
class State:
    done: torch.Tensor


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.n = 3
        self.log_scale = nn.Parameter(torch.zeros(4))

    @property
    def flag(self):
        return self.weight_sum() > 0

    @property
    def ready(self):
        return self.n > 0

    @property
    def scale(self):
        return self.log_scale.exp()

    def weight_sum(self):
        return torch.ones(2).sum()


class ProbeHelper(Base):
    def forward(self, x):
        x = x * 2
        if converged(x):
            x = x + 1
        return x


class ProbeDataclassField(Base):
    def forward(self, x):
        x = x * 2
        s = State(done=x.sum() > 100)
        if s.done:
            x = x - 1
        return x


class ProbeProperty(Base):
    def forward(self, x):
        x = x * 2
        if self.flag:
            x = x * 3
        return x


class ProbeNearMissPythonProperty(Base):
    def forward(self, x):
        x = x * 2
        if self.ready:
            x = x * 3
        return x * self.scale


def inputs():
    return (torch.randn(4),)
