"""GB0059 Failed to trace builtin operator: `~obj` on an object whose class defines `__invert__`
(GM623): Dynamo runs an object's `__neg__` or `__abs__`, but has no `~` for objects."""

import torch


class Sign:
    def __init__(self, t: torch.Tensor) -> None:
        self.t = t

    def __invert__(self) -> "Sign":
        return Sign(-self.t)

    def __neg__(self) -> "Sign":
        return Sign(-self.t)


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        x = x + 1
        negated = -Sign(x)
        flipped = ~Sign(x)  # graph-break: GB0059 GM623
        return flipped.t + negated.t


def inputs():
    return (torch.ones(3),)
