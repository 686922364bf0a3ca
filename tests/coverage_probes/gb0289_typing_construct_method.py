"""GB0289 unsupported method call on `typing` variable: `Optional[int].__eq__(...)` in traced code (GM682)."""

from typing import Optional

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        same = Optional[int].__eq__(Optional[int])  # graph-break: GB0289 GM682
        return x + same


def inputs():
    return (torch.ones(3),)
