"""GB0055 Failed to convert args/kwargs to proxy: `assert transforms` on a `*transforms` of objects (GM203)."""

import torch
from torch.distributions import AffineTransform, ExpTransform, Transform


class Composed(Transform):
    def __init__(self, *transforms: Transform, **kwargs):
        super().__init__(**kwargs)
        assert transforms, "'transforms' cannot be empty"  # graph-break: GB0055 GM203
        self.transforms = transforms


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x + 1
        composed = Composed(AffineTransform(y, 2.0), ExpTransform())
        return composed.transforms[0].loc * 2


def inputs():
    return (torch.ones(3),)
