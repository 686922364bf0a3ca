"""GB0088 Observed exception: a base's property read through `super()` (`super().features + [...]`,
cheetah's `defining_features`) gives Dynamo the property object itself, not its value, and the first
operation on it raises TypeError inside the trace; calling a base's method through `super()` traces."""

import torch


class Base:
    @property
    def features(self) -> list[str]:
        return ["length"]

    def names(self) -> list[str]:
        return ["k1"]


class Element(Base):
    @property
    def features(self) -> list[str]:
        return super().features + ["angle"]  # graph-break: GB0088 GM619

    def all_names(self) -> list[str]:
        return super().names() + ["k2"]


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        element = Element()
        return x * len(element.features) + len(element.all_names())


def inputs():
    return (torch.ones(2, 3),)
