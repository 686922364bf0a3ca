"""Random 0-d draws where torch functions take Python ints (augmentations: a random shift, crop
start); near misses: a constant folded, a draw read as a 1-d index (gathers)."""

import torch
import torch.nn.functional as F
from torch import nn


class ProbeRollShift(nn.Module):
    def forward(self, x):
        x = x * 2
        shift = torch.randint(-2, 2, ())
        return torch.roll(x, shifts=shift)


class ProbeRollInline(nn.Module):
    def forward(self, x):
        x = x * 2
        return torch.roll(x, torch.randint(-2, 2, ()), 0)


class ProbeNarrowStart(nn.Module):
    def forward(self, x):
        x = x * 2
        start = torch.randint(0, 2, ())
        return torch.narrow(x, 0, start, 2)


class ProbePad(nn.Module):
    def forward(self, x):
        x = x * 2
        n = torch.randint(1, 3, ())
        return F.pad(x, (0, n))


class ProbeNearMissConstant(nn.Module):
    def forward(self, x):
        x = x * 2
        return torch.roll(x, shifts=torch.div(6, 3, rounding_mode="floor"))


class ProbeNearMissOneD(nn.Module):
    def forward(self, x):
        x = x * 2
        return x[torch.randint(0, 4, (2,))]


def inputs():
    return (torch.randn(4),)
