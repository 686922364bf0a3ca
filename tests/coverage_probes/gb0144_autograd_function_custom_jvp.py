"""GB0144 Unsupported custom jvp: `Fn.apply(...)` on an autograd.Function that defines `jvp`,
with grad enabled and an input that requires grad (GM637)."""

import torch


class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2

    @staticmethod
    def jvp(ctx, tangent):
        return tangent * 2


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + 1
        y = Double.apply(x)  # graph-break: GB0144 GM637
        return y + 1


def inputs():
    return (torch.ones(3, requires_grad=True),)
