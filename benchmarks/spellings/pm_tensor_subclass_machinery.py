"""A tensor subclass's machinery as libraries spell it: `hasattr(func, ...)` in `__torch_function__`
(GB0150, GM644) and its traced near misses, and a breaking method called on an instance (GB0092 at
the call, each level of a chain of them: no rule yet) or through the class (traces to the break)."""

import torch
from torch import nn

HANDLED = {"add", "mul"}


class Tagged(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs={}):  # noqa: B006 (as pypose spells it)
        data = super().__torch_function__(func, types, args, kwargs)
        if data is not None and hasattr(func, "__name__") and func.__name__ in HANDLED:
            return data
        return data

    def scaled(self):
        return self * self.shape[0]


class Named(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        out = super().__torch_function__(func, types, args, kwargs or {})
        if getattr(func, "__name__", None) in HANDLED or func.__name__ == "sum" or hasattr(cls, "ltype"):
            return out
        return out

    def scaled(self):
        return self * self.shape[0]


class Plain(torch.Tensor):
    def unwrap(self):
        return torch.Tensor.as_subclass(self, torch.Tensor)

    def twice(self):
        return self.unwrap() * 2


class ProbeShapeThroughOverride(nn.Module):
    def forward(self, x):
        return Tagged.scaled(x[0]) + 1


class ProbeNamedOverride(nn.Module):
    def forward(self, x):
        return Named.scaled(x[1]) + 1


class ProbeBreakingMethodOnInstance(nn.Module):
    def forward(self, x):
        p = x[2]
        return p.unwrap() + 1


class ProbeBreakingMethodChain(nn.Module):
    def forward(self, x):
        p = x[2]
        return p.twice() + 1


class ProbeBreakingMethodThroughClass(nn.Module):
    def forward(self, x):
        p = x[2]
        return Plain.unwrap(p) + 1


def inputs():
    base = torch.ones(3)
    return ((base.as_subclass(Tagged), base.as_subclass(Named), base.as_subclass(Plain)),)
