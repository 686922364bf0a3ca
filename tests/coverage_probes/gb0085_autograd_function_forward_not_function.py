"""GB0085 Non-function or method in subclass of torch.autograd.Function: a class whose `forward`
is bound to something other than a `def` (a `functools.partial`), applied to tensors none of
which requires grad (GM637)."""

import functools

import torch


def _scaled(ctx, x, scale):
    return x * scale


class Double(torch.autograd.Function):
    forward = staticmethod(functools.partial(_scaled, scale=2))

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + 1
        y = Double.apply(x)  # graph-break: GB0085 GM637
        return y + 1


def inputs():
    return (torch.ones(3),)
