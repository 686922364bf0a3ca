"""torch-dct: discrete cosine transforms (1-D, 2-D, 3-D) through the FFT.

Users call the transforms in compression, JPEG-style and spectral models.
"""

from __future__ import annotations

import torch
import torch_dct

DISTRIBUTION = "torch-dct"
PACKAGE = "torch_dct"
WHY = "scientific / signal processing: DCT and inverse DCT through torch.fft"


def call_dct_idct():
    return lambda x: torch_dct.idct(torch_dct.dct(x, norm="ortho"), norm="ortho"), (torch.randn(4, 16),), {}


def call_dct_2d():
    return torch_dct.dct_2d, (torch.randn(2, 8, 8),), {}


def call_linear_dct():
    return torch_dct.LinearDCT(16, "dct"), (torch.randn(4, 16),), {}
