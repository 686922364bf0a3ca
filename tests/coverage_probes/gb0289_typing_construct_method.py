"""GB0289 unsupported method call on `typing` variable: `Optional[int].__eq__(...)` in traced code (GM672)."""

from typing import Optional

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        same = Optional[int].__eq__(Optional[int])  # graph-break: GB0289 GM672
        return x + same


def inputs():
    return (torch.ones(3),)
