"""einops: tensor rearrangement by pattern (rearrange, reduce, repeat, pack/unpack, layers).

Users write their models' reshapes with it; Dynamo has special support for its functions.
"""

from __future__ import annotations

import torch
from einops import pack, rearrange, reduce, unpack
from einops.layers.torch import Rearrange, Reduce

DISTRIBUTION = "einops"
PACKAGE = "einops"
WHY = "tensor utilities: pattern-based reshapes used by most research model code"


def call_layers():
    model = torch.nn.Sequential(
        Rearrange("b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=4, p2=4), torch.nn.Linear(48, 16), Reduce("b n d -> b d", "mean")
    )
    return model, (torch.randn(2, 3, 16, 16),), {}


def _attention_heads(x: torch.Tensor) -> torch.Tensor:
    q = rearrange(x, "b n (h d) -> b h n d", h=2)
    packed, shapes = pack([q, q], "b h * d")
    first, _second = unpack(packed, shapes, "b h * d")
    return reduce(first, "b h n d -> b n", "max")


def call_functions():
    return _attention_heads, (torch.randn(2, 8, 16),), {}
