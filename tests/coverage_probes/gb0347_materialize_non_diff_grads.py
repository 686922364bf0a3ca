"""GB0347 autograd.Function.apply: _materialize_non_diff_grads mutation: `Fn.apply(...)` on an
autograd.Function whose forward sets `ctx._materialize_non_diff_grads`, with grad enabled and an
input that requires grad (GM637); without grad Dynamo inlines forward and traces it."""

import torch


class KeepNoneGrads(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx._materialize_non_diff_grads = False
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + 1
        y = KeepNoneGrads.apply(x)  # graph-break: GB0347 GM637
        return y + 1


def inputs():
    return (torch.ones(3, requires_grad=True),)
