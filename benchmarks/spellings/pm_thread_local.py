"""Attributes of a `threading.local()` held at module level or in `self`: read, written, through
`__dict__` (tensorly's backend dispatch), `getattr` with a default."""

import threading

import torch
from torch import nn

_STATE = threading.local()
_STATE.scale = 2.0


class Local(threading.local):
    scale = 3.0


_SUB = Local()


class ProbeReadAttribute(nn.Module):
    def forward(self, x):
        x = x * 2
        return x * _STATE.scale


class ProbeReadDict(nn.Module):
    def forward(self, x):
        x = x * 2
        return x * _STATE.__dict__.get("scale", 1.0)


class ProbeGetattrDefault(nn.Module):
    def forward(self, x):
        x = x * 2
        return x * getattr(_STATE, "missing", 1.0)


class ProbeWrite(nn.Module):
    def forward(self, x):
        x = x * 2
        _STATE.last = 1
        return x + 1


class ProbeHeldInInit(nn.Module):
    def __init__(self):
        super().__init__()
        self.local = threading.local()
        self.local.scale = 2.0

    def forward(self, x):
        x = x * 2
        return x * self.local.scale


class ProbeSubclassRead(nn.Module):
    def forward(self, x):
        x = x * 2
        return x * _SUB.scale


class ProbeHasattr(nn.Module):
    def forward(self, x):
        x = x * 2
        if hasattr(_STATE, "scale"):
            x = x + 1
        return x


def inputs():
    return (torch.randn(4),)
