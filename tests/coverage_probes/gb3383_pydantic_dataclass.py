"""GB3383 Pydantic dataclass constructor (GM692)."""

import pydantic
import torch


@pydantic.dataclasses.dataclass
class Options:
    scale: float


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + 1
        options = Options(scale=2.0)  # graph-break: GB3383 GM692
        return x * options.scale


def inputs():
    return (torch.ones(3),)
