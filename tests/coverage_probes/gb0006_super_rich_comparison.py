"""GB0006 Attempted to call a super() attribute that is not a function or method: `super().__lt__`
(and `__le__`, `__gt__`, `__ge__`, `__ne__`) reaching `object`'s rich comparison, a slot Dynamo
cannot call (GM619)."""

import torch


class Version:
    def __init__(self, number: int) -> None:
        self.number = number

    def older(self, other: object) -> bool:
        if isinstance(other, Version):
            return self.number < other.number
        return super().__lt__(other)  # graph-break: GB0006 GM619

    def differs(self, other: object) -> bool:
        return super().__ne__(other)  # graph-break: GB0006 GM619


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.version = Version(2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        unordered = self.version.older(3) is NotImplemented
        x = x + 1
        return x + unordered + self.version.differs(self.version)


def inputs():
    return (torch.ones(3),)
