"""Tensors held in attributes by construction, then read as numbers: a 0-d counter buffer offset
or cast, a 1-d buffer iterated or indexed by an element; near misses: the 0-d buffer itself as an
index (an input of the graph: Dynamo specializes), the rows of a 2-d buffer (they gather)."""

import torch
from torch import nn


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("step", torch.tensor(0))
        self.register_buffer("history", torch.zeros(8, 4))
        self.register_buffer("order", torch.arange(3, -1, -1))
        self.register_buffer("pairs", torch.tensor([[0, 1], [2, 3]]))
        self.perm = torch.randperm(4)


class ProbeCounterOffset(Base):
    def forward(self, x):
        x = x * 2
        return self.history[(self.step + 1) % 8] + x


class ProbeCounterCast(Base):
    def forward(self, x):
        x = x * 2
        return x * int(self.step)


class ProbeCounterRange(Base):
    def forward(self, x):
        x = x * 2
        for _ in range(self.step + 1):
            x = x + 1
        return x


class ProbeLoopOverBuffer(Base):
    def forward(self, x):
        y = x * 2
        for i in self.order:
            y = y + x[..., i].unsqueeze(-1)
        return y


class ProbeEnumerateBuffer(Base):
    def forward(self, x):
        y = x * 2
        for k, i in enumerate(self.perm):
            y[..., k] = x[..., i]
        return y


class ProbeBufferElement(Base):
    def forward(self, x):
        y = x * 2
        return y[..., self.order[0]]


class ProbeCounterMethodArgument(Base):
    def forward(self, x):
        x = x * 2
        return x.roll(self.step + 1, 1)


class ProbeCounterNarrow(Base):
    def forward(self, x):
        x = x * 2
        return x.narrow(1, self.step + 1, 2)


class ProbeNearMissCounterArgument(Base):
    def forward(self, x):
        x = x * 2
        return x.roll(self.step, 1)


class ProbeNearMissCounterItself(Base):
    def forward(self, x):
        x = x * 2
        return self.history[self.step] + x


class ProbeNearMissRows(Base):
    def forward(self, x):
        y = x * 2
        for row in self.pairs:
            y = y + x[..., row].sum(-1, keepdim=True)
        return y


class ProbeNearMissWholeBuffer(Base):
    def forward(self, x):
        y = x * 2
        return y[..., self.order]


def inputs():
    return (torch.randn(2, 4),)
