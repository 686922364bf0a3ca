"""GB0135 Unsupported attribute assignment on Exception object (GM617)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        try:
            raise ValueError("bad input")
        except ValueError as err:
            err.detail = "shape"  # graph-break: GB0135 GM617
        return x + 1


def inputs():
    return (torch.ones(3),)
