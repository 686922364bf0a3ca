"""ptwt: the PyTorch wavelet toolbox (fast wavelet transforms, 1-D and 2-D, differentiable).

Users call the transforms inside models and losses (wavelet features, frequency losses).
"""

from __future__ import annotations

import ptwt
import pywt
import torch

DISTRIBUTION = "ptwt"
PACKAGE = "ptwt"
WHY = "scientific / signal processing: wavelet transforms (padding modes, filter banks)"


def call_wavedec():
    return ptwt.wavedec, (torch.randn(2, 64), pywt.Wavelet("haar")), {"level": 2, "mode": "reflect"}


def call_waverec_roundtrip():
    coefficients = ptwt.wavedec(torch.randn(2, 64), pywt.Wavelet("db2"), level=2, mode="zero")
    return ptwt.waverec, (coefficients, pywt.Wavelet("db2")), {}


def call_wavedec2():
    return ptwt.wavedec2, (torch.randn(1, 32, 32), pywt.Wavelet("haar")), {"level": 2, "mode": "zero"}
