"""GB0006 Attempted to call a super() attribute that is not a function or method: `super().act(x)`
where the base binds `act` to an object, not a function (GM619)."""

import torch


class Doubler:
    def __call__(self, t: torch.Tensor) -> torch.Tensor:
        return t * 2


class Base:
    act = Doubler()


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.head = Scaled()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        x = x + 1
        return self.head.run(x)


class Scaled(Base):
    def run(self, x: torch.Tensor) -> torch.Tensor:
        return super().act(x)  # graph-break: GB0006 GM619


def inputs():
    return (torch.ones(3),)
