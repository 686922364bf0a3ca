"""A 0-d buffer used as an index: a step counter or a ring-buffer position, as read and offset."""

import torch
from torch import nn


class ProbeRead(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("step", torch.tensor(0))
        self.register_buffer("history", torch.zeros(8, 4))

    def forward(self, x):
        x = x * 2
        return self.history[self.step] + x


class ProbeOffset(ProbeRead):
    def forward(self, x):
        x = x * 2
        return self.history[self.step + 1] + x


class ProbeStore(ProbeRead):
    def forward(self, x):
        x = x * 2
        self.history[self.step] = x
        return x


def inputs():
    return (torch.randn(4),)
