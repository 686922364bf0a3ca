"""GB0006 Attempted to call a super() attribute that is not a function or method: `super().__init__`
in a subclass of a builtin exception reaches BaseException's `__init__`, a C slot Dynamo cannot
call (GM619)."""

import torch


class ShapeError(ValueError):
    def __init__(self, message: str, *, expected: int) -> None:
        super().__init__(message)  # graph-break: GB0006 GM619
        self.expected = expected


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        error = ShapeError("too short", expected=4)
        return x + error.expected


def inputs():
    return (torch.ones(3),)
