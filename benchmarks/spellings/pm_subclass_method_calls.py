"""A tensor subclass's method whose body breaks, called on an instance, as pypose spells it
(`x = x.tensor() if isinstance(x, LieTensor) else x` in an override of `LieType.Exp(self, x:
LieTensor)`, `tensor()` returning `Tensor.as_subclass(self, Tensor)`), and its near misses: the
class's value known by an annotation, an isinstance test alone (GM662 leaves these out: callers may
pass plain tensors), `self`; a method that traces; the call through the class; a method with another
break; a plain object's breaking method."""

from __future__ import annotations

import torch
from torch import nn

HANDLED = {"add", "mul"}


class Lie(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs or {})

    def tensor(self):
        return torch.Tensor.as_subclass(self, torch.Tensor)

    def doubled(self):
        return self.tensor() * 2

    def traced(self):
        return self * 2

    def printed(self):
        print("x")
        return self * 2

    def itemized(self):
        return self * self.sum().item()

    @property
    def plain(self):
        return torch.Tensor.as_subclass(self, torch.Tensor)


class Bare(torch.Tensor):
    def tensor(self):
        return torch.Tensor.as_subclass(self, torch.Tensor)


class Holder:
    def tensor(self, x):
        print("x")
        return x * 2


class LieType:
    def Exp(self, x: Lie):
        return x * 2


class SO3Type(LieType):
    def Exp(self, x):
        x = x.tensor() if isinstance(x, Lie) else x
        return x * 3


def unwrap(x):
    return x.tensor() if isinstance(x, Lie) else x


def unwrap_annotated(x: Lie):
    return x.tensor()


def traced_annotated(x: Lie):
    return x.traced()


class ProbeIsinstanceTernary(nn.Module):
    def forward(self, x):
        return unwrap(x[0]) + 1


class ProbeOverrideOfAnnotated(nn.Module):
    def __init__(self):
        super().__init__()
        self.kind = SO3Type()

    def forward(self, x):
        return self.kind.Exp(x[0]) + 1


class ProbeAnnotated(nn.Module):
    def forward(self, x):
        return unwrap_annotated(x[0]) + 1


class ProbeTracedMethod(nn.Module):
    def forward(self, x):
        return traced_annotated(x[0]) + 1


class ProbeSelfChain(nn.Module):
    def forward(self, x):
        return Lie.doubled(x[0]) + 1


class ProbeThroughClass(nn.Module):
    def forward(self, x):
        p = x[0]
        return Lie.tensor(p) + 1


class ProbePrintMethod(nn.Module):
    def forward(self, x):
        p = x[0]
        if isinstance(p, Lie):
            return p.printed() + 1
        return p


class ProbeItemMethod(nn.Module):
    def forward(self, x):
        p = x[0]
        if isinstance(p, Lie):
            return p.itemized() + 1
        return p


class ProbeProperty(nn.Module):
    def forward(self, x):
        p = x[0]
        if isinstance(p, Lie):
            return p.plain + 1
        return p


class ProbeBareSubclass(nn.Module):
    def forward(self, x):
        p = x[1]
        if isinstance(p, Bare):
            return p.tensor() + 1
        return p


class ProbeBoundMethodValue(nn.Module):
    def forward(self, x):
        p = x[0]
        if isinstance(p, Lie):
            method = p.tensor
            return method() + 1
        return p


class ProbeMadeHere(nn.Module):
    def forward(self, x):
        p = x[2].as_subclass(Lie)
        return p.tensor() + 1


class ProbePlainObject(nn.Module):
    def __init__(self):
        super().__init__()
        self.holder = Holder()

    def forward(self, x):
        return self.holder.tensor(x[2]) + 1


def inputs():
    base = torch.ones(3)
    return ((base.as_subclass(Lie), base.as_subclass(Bare), base),)
