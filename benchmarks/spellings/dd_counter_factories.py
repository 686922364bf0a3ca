"""A 0-d integer counter buffer made by a factory of size `()` (`torch.zeros((), dtype=torch.long)`),
computed on and read as an index or a method's int argument; near misses: a counter of size 1
(`torch.zeros(1, dtype=torch.long)`, 1-d: the index gathers), the counter itself as the index."""

import torch
from torch import nn


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("step", torch.zeros((), dtype=torch.long))
        self.register_buffer("count", torch.ones([], dtype=torch.int64))
        self.register_buffer("wide", torch.zeros(1, dtype=torch.long))
        self.register_buffer("history", torch.zeros(8, 4))


class ProbeZerosCounterOffset(Base):
    def forward(self, x):
        x = x * 2
        return self.history[(self.step + 1) % 8] + x


class ProbeOnesCounterRoll(Base):
    def forward(self, x):
        x = x * 2
        return x.roll(self.count + 1, 1)


class ProbeNearMissSizeOneCounter(Base):
    def forward(self, x):
        x = x * 2
        return self.history[(self.wide + 1) % 8] + x


class ProbeNearMissCounterItself(Base):
    def forward(self, x):
        x = x * 2
        return self.history[self.step] + x


def inputs():
    return (torch.randn(8, 4),)
