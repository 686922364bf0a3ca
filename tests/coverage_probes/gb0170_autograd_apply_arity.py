"""GB0170 Data-dependent branching: Dynamo's `autograd.Function.apply` drops `ctx` when the call's
argument count equals `forward`'s parameter count (torch 2.13, `AutogradFunctionVariable.call_apply`,
the path taken when no input requires grad: `if len(args) - 1 == len(sig.parameters)`, which
counts `*args` as one parameter). Every argument then binds one place over: `ctx` gets the
first, `has_left` the tensor, and `if ctx.has_left:` branches on it. linear_operator's `Solve`
(`func.apply(tree, False, right_tensor, *self.representation())` with one tensor in the
representation, functions/_solve.py:35) is this. GM634 counts a starred argument as one value,
as the solver's every binding does; `ctx` getting an object, the store on it traces.
"""

import torch


class Representation:
    def __call__(self, *parts: torch.Tensor) -> torch.Tensor:
        return parts[0]


class Solve(torch.autograd.Function):
    @staticmethod
    def forward(ctx, representation, has_left, *args):
        ctx.has_left = has_left
        if ctx.has_left:  # graph-break: GB0170 GM634
            left, right, matrix = args
            return left @ (representation(matrix) @ right)
        right, matrix = args
        return representation(matrix) @ right

    @staticmethod
    def backward(ctx, grad):
        return None, None, grad, None


class Probe(torch.nn.Module):
    def forward(self, right: torch.Tensor, matrix: torch.Tensor) -> torch.Tensor:
        parts = (matrix,)
        return Solve.apply(Representation(), False, right, *parts)


def inputs():
    return (torch.randn(3, 2), torch.randn(3, 3))
