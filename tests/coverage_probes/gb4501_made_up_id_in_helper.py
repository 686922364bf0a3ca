"""GB4501 Reconstruction of FakeIdVariable: `id()` of a list built in an inlined helper compared with the id of an input (GM681)."""

import torch


def shifted(parts: list, x: torch.Tensor) -> torch.Tensor:
    order = list(parts)
    if id(order) == id(parts):  # graph-break: GB4501 GM681
        return x
    return x + 1


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor, parts: list) -> torch.Tensor:
        return shifted(parts, x * 2)


def inputs():
    return (torch.ones(3), [1, 2])
