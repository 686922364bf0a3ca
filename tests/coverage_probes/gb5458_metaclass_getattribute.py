"""GB5458 Custom metaclass with __getattribute__: a classmethod called on a class whose metaclass defines it (GM683)."""

import torch


class Guarded(type):
    def __getattribute__(cls, name):
        return super().__getattribute__(name)


class Registry(metaclass=Guarded):
    @classmethod
    def scaled(cls, t: torch.Tensor) -> torch.Tensor:
        return t * 2


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        return Registry.scaled(x)  # graph-break: GB5458 GM683


def inputs():
    return (torch.ones(3),)
