"""torchkbnufft: non-uniform FFT (Kaiser-Bessel) for MRI reconstruction.

Users compile the forward NUFFT and its adjoint inside unrolled reconstruction networks.
"""

from __future__ import annotations

import math

import torch
import torchkbnufft as tkbn

DISTRIBUTION = "torchkbnufft"
PACKAGE = "torchkbnufft"
WHY = "scientific imaging: non-uniform FFTs (MRI k-space), complex tensors"


def _trajectory() -> torch.Tensor:
    return (torch.rand(2, 64) * 2 - 1) * math.pi


def call_forward_nufft():
    image = torch.randn(1, 1, 16, 16, dtype=torch.complex64)
    return tkbn.KbNufft(im_size=(16, 16)), (image, _trajectory()), {}


def call_adjoint_nufft():
    data = torch.randn(1, 1, 64, dtype=torch.complex64)
    return tkbn.KbNufftAdjoint(im_size=(16, 16)), (data, _trajectory()), {}
