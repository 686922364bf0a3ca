"""GB2019 Unsupported autograd.Function context `mark_dirty`: `ctx.mark_dirty(...)` in the
forward of an autograd.Function applied to tensors none of which requires grad (inference,
`torch.no_grad()`): Dynamo inlines forward with a context that has no graph proxy (GM637)."""

import torch


class DoubleInPlace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)  # graph-break: GB2019 GM637
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = DoubleInPlace.apply(x.clone())
        return y + 1


def inputs():
    return (torch.ones(3),)
