"""GB0170 Data-dependent branching: `Fn.apply(False, x, y)` on a static `forward(ctx, flag, *args)`
passes as many arguments as `forward` declares parameters (`*args` counted once). With no input
requiring grad Dynamo then drops `ctx` (torch 2.13, `AutogradFunctionVariable.call_apply`) and
binds each argument one place over: `flag` gets `x`, and `if flag:` branches on a tensor (GM634).
The same class applied to one extra value binds right and traces.
"""

import torch


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, flag, *args):
        if flag:  # graph-break: GB0170 GM634
            return args[0] * 3
        return args[0] * 2 + args[-1]

    @staticmethod
    def backward(ctx, grad):
        return None, grad, None


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return Scale.apply(False, x, y) + 1


def inputs():
    return (torch.ones(3), torch.ones(3))
