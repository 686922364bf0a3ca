"""Tensors made to require grad in traced code and handed out (GB8985), the way physics-informed
and attack code spells it; near misses: the flag read, a leaf input."""

import torch
from torch import nn


def with_grad(t):
    return t.detach().requires_grad_()


class ProbeEnableGrad(nn.Module):
    def forward(self, x):
        with torch.enable_grad():
            y = x.clone().requires_grad_(True)
        return y


class ProbeHelper(nn.Module):
    def forward(self, x):
        y = with_grad(x * 2)
        return y


class ProbeVariable(nn.Module):
    def forward(self, x):
        y = torch.autograd.Variable(x * 2, requires_grad=True)
        return y


class ProbeSetattr(nn.Module):
    def forward(self, x):
        y = x * 2
        y.requires_grad_(requires_grad=True)
        return y


class ProbeLoop(nn.Module):
    def forward(self, x):
        outs = [t.detach().requires_grad_() for t in (x, x * 2)]
        return outs


class ProbeNearMissFlag(nn.Module):
    def forward(self, x):
        y = x * 2
        if x.requires_grad:
            y = y + 1
        return y


def inputs():
    return (torch.randn(4),)
