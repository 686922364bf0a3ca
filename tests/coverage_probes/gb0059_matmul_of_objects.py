"""GB0059 Failed to trace builtin operator: `a @ b` of two objects whose class defines
`__matmul__` (GM623): Dynamo runs an object's `__add__`, but has no `@` for objects."""

import torch


class Matrix:
    def __init__(self, t: torch.Tensor) -> None:
        self.t = t

    def __matmul__(self, other: "Matrix") -> "Matrix":
        return Matrix(self.t * other.t)


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        x = x + 1
        product = Matrix(x) @ Matrix(x + 1)  # graph-break: GB0059 GM623
        return product.t


def inputs():
    return (torch.ones(3),)
