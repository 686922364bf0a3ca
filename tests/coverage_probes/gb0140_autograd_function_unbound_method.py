"""GB0140 Unsupported autograd.Function method: `Fn.helper(...)` on a method an autograd.Function
defines with neither `@staticmethod` nor `@classmethod`, in every grad mode (GM637)."""

import torch


class Scale(torch.autograd.Function):
    def scaled(x):
        return x * 2

    @staticmethod
    def forward(ctx, x):
        return x * 3

    @staticmethod
    def backward(ctx, grad):
        return grad * 3


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + 1
        y = Scale.scaled(x)  # graph-break: GB0140 GM637
        return y + 1


def inputs():
    return (torch.ones(3),)
