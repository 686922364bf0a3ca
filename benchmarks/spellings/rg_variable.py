"""`torch.autograd.Variable` as older libraries spell it (a deprecated no-op wrapper since 0.4): with
and without `requires_grad`, imported by name, on a parameter; near miss: `x.detach()`."""

import torch
from torch import nn
from torch.autograd import Variable


class ProbePlain(nn.Module):
    def forward(self, x):
        y = torch.autograd.Variable(x * 2)
        return y + 1


class ProbeImported(nn.Module):
    def forward(self, x):
        y = Variable(x * 2, requires_grad=False)
        return y + 1


class ProbeOnInput(nn.Module):
    def forward(self, x):
        return Variable(x) * 2


class ProbeZeros(nn.Module):
    def forward(self, x):
        h = Variable(torch.zeros(2, 4))
        return x + h


class ProbeNearMissDetach(nn.Module):
    def forward(self, x):
        return x.detach() * 2


def inputs():
    return (torch.randn(2, 4),)
