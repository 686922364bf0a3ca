"""`super().__setattr__` / `__getattribute__` / `__delattr__` / `__sizeof__` reaching object's slot
wrappers, on objects built outside the frame (held in `self`) or inside it."""

import torch
from torch import nn


class Record:
    def __init__(self):
        object.__setattr__(self, "k", 2.0)

    def __setattr__(self, name, value):
        super().__setattr__(name, value)

    def get(self, name):
        return super().__getattribute__(name)

    def drop(self, name):
        super().__delattr__(name)

    def size(self):
        return super().__sizeof__()


class ProbeHeldSetattr(nn.Module):
    def __init__(self):
        super().__init__()
        self.rec = Record()

    def forward(self, x):
        x = x * 2
        self.rec.k = 3.0
        return x + 1


class ProbeHeldGetattribute(nn.Module):
    def __init__(self):
        super().__init__()
        self.rec = Record()

    def forward(self, x):
        x = x * 2
        return x * self.rec.get("k")


class ProbeHeldDelattr(nn.Module):
    def __init__(self):
        super().__init__()
        self.rec = Record()
        self.rec.tmp = 1

    def forward(self, x):
        x = x * 2
        self.rec.drop("tmp")
        return x + 1


class ProbeHeldSizeof(nn.Module):
    def __init__(self):
        super().__init__()
        self.rec = Record()

    def forward(self, x):
        x = x * 2
        return x + self.rec.size()


class ModuleSet(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 2.0

    def set_scale(self, v):
        super().__setattr__("scale", v)


class ProbeModuleSuperSetattr(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = ModuleSet()

    def forward(self, x):
        x = x * 2
        self.inner.set_scale(3.0)
        return x + 1


def inputs():
    return (torch.randn(4),)
