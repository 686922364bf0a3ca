"""GB0145 Unsupported custom vjp: `Fn.apply(...)` on an autograd.Function whose class binds its
own `vjp` (here the old alias `vjp = backward`), with grad enabled and an input that requires
grad (GM637)."""

import torch


class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2

    vjp = backward


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + 1
        y = Double.apply(x)  # graph-break: GB0145 GM637
        return y + 1


def inputs():
    return (torch.ones(3, requires_grad=True),)
