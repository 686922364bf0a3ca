"""GB0257 TypedDict with optional keys (GM615)."""

from typing import TypedDict

import torch


class Options(TypedDict, total=False):
    scale: float


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + 1
        options = Options(scale=2.0)  # graph-break: GB0257 GM615
        return x * options.get("scale", 1.0)


def inputs():
    return (torch.ones(3),)
