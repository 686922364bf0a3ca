"""positional-encodings (tatp22): 1D, 2D and 3D sinusoidal positional encodings for sequences, images
and volumes (transformers on images, NeRF-style coordinate encodings).

Users compile the encodings inside a model: the 2D encoding added to a feature map (`Summer` over the
channels-first `PositionalEncodingPermute2D`), the 3D encoding of a volume's grid, and the 1D encoding
on a batch of sequences.
"""

from __future__ import annotations

import torch
from positional_encodings.torch_encodings import (
    PositionalEncoding1D,
    PositionalEncoding3D,
    PositionalEncodingPermute2D,
    Summer,
)

DISTRIBUTION = "positional-encodings"
PACKAGE = "positional_encodings"
WHY = "vision / 3D: sinusoidal positional encodings of 1D, 2D and 3D grids"


def call_summer_permute_2d():
    return Summer(PositionalEncodingPermute2D(6)), (torch.randn(2, 6, 8, 10),), {}


def call_encoding_3d():
    return PositionalEncoding3D(10), (torch.randn(1, 4, 5, 6, 10),), {}


def call_encoding_1d():
    return PositionalEncoding1D(16), (torch.randn(4, 12, 16),), {}
