"""GB4880 missing_mp_subscript: `NDArray[np.float64]`, numpy.typing's generic alias subscripted in traced code (GM685)."""

from typing import cast

import numpy as np
import torch
from numpy.typing import NDArray


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        y = cast(NDArray[np.float64], x)  # graph-break: GB4880 GM685
        return y + 1


def inputs():
    return (torch.ones(3),)
