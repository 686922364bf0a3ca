"""GB0006 Attempted to call a super() attribute that is not a function or method: a metaclass `__call__` traced in an eager frame (GM610)."""

import torch


class Meta(type):
    def __call__(cls, *args, **kwargs):
        return super().__call__(*args, **kwargs)  # graph-break: GB0006 GM610


class Solver(metaclass=Meta):
    def __init__(self, y):
        self.y = y


class Log:
    def __init__(self, *parts):
        print("parts", len(parts))  # graph-break: GB0059 GM401
        self.parts = parts


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x + 1
        log = Log(*(y * s for s in (1.0, 2.0)))  # graph-break: GB8335 GM609
        return Solver(y).y + log.parts[0]


def inputs():
    return (torch.ones(3),)
