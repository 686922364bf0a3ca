"""`super().NAME(...)` reaching what is no plain function: object's slot wrappers, a base outside
the tree; near misses: nn.Module's own methods through super()."""

import torch
from torch import nn


class Plain:
    def __init__(self):
        self.k = 2


class Holder(Plain):
    def __setattr__(self, name, value):
        super().__setattr__(name, value)

    def __getattribute__(self, name):
        return super().__getattribute__(name)


class ProbeSuperSetattrOfObject(nn.Module):
    def forward(self, x):
        x = x * 2
        h = Holder()
        h.k = 3
        return x + h.k


class Box(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 2.0

    def __getattr__(self, name):
        return super().__getattr__(name)


class ProbeNearMissModuleGetattr(nn.Module):
    def __init__(self):
        super().__init__()
        self.box = Box()
        self.box.lin = nn.Linear(4, 4)

    def forward(self, x):
        x = x * 2
        return self.box.lin(x)


class Base(nn.Module):
    def forward(self, x):
        return x + 1


class ProbeNearMissSuperForward(Base):
    def forward(self, x):
        x = x * 2
        return super().forward(x)


class ProbeSuperSetattrModule(nn.Module):
    def forward(self, x):
        x = x * 2
        super().__setattr__("extra", 1)
        return x + 1


class ProbeSuperNew(nn.Module):
    def forward(self, x):
        x = x * 2
        obj = object.__new__(Plain)
        return x + (obj is not None)


class Wrapped(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs or {})


class ProbeSuperTorchFunction(nn.Module):
    def forward(self, x):
        x = x * 2
        w = x.as_subclass(Wrapped)
        return w + 1


class Named:
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)


class ProbeSuperDir(nn.Module):
    def forward(self, x):
        x = x * 2
        return x + len(super().__dir__())


def inputs():
    return (torch.randn(4),)
