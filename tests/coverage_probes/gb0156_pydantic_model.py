"""GB0156 Unsupported method call: building a pydantic.BaseModel runs SchemaValidator.validate_python (GM692)."""

import pydantic
import torch


class Options(pydantic.BaseModel):
    scale: float


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + 1
        options = Options(scale=2.0)  # graph-break: GB0156 GM692
        return x * options.scale


def inputs():
    return (torch.ones(3),)
