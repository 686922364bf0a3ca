"""GB0006 Attempted to call a super() attribute that is not a function or method: `super().__eq__`
reaching `object.__eq__`, a slot Dynamo cannot call (GM619)."""

import torch


class Tag:
    def __init__(self, name: str) -> None:
        self.name = name

    def same(self, other: object) -> bool:
        return super().__eq__(other)  # graph-break: GB0006 GM619


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.tag = Tag("a")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        return x + self.tag.same(self.tag)


def inputs():
    return (torch.ones(3),)
