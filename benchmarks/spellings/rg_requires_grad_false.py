"""`requires_grad_(False)`: freezing parameters in traced code, and the no-op on an intermediate."""

import torch
from torch import nn


class ProbeFreezeParameters(nn.Module):
    def __init__(self):
        super().__init__()
        self.teacher = nn.Linear(4, 4)

    def forward(self, x):
        x = x * 2
        for p in self.teacher.parameters():
            p.requires_grad_(False)
        return self.teacher(x)


class ProbeFreezeWeight(ProbeFreezeParameters):
    def forward(self, x):
        x = x * 2
        self.teacher.weight.requires_grad_(False)
        return self.teacher(x)


class ProbeNearMissIntermediate(ProbeFreezeParameters):
    def forward(self, x):
        x = x * 2
        y = x.detach().requires_grad_(False)
        return y + 1


def inputs():
    return (torch.randn(4),)
