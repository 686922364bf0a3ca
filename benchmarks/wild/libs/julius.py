"""julius: fast audio resampling and filtering in PyTorch (FFT/convolution based).

Users compile resampling and band splitting in audio data pipelines and models (Demucs uses it).
"""

from __future__ import annotations

import julius
import torch

DISTRIBUTION = "julius"
PACKAGE = "julius"
WHY = "audio: resampling, low-pass filters and band splitting, used inside audio models"


def call_resample_frac():
    return julius.resample_frac, (torch.randn(2, 4000), 4, 5), {}


def call_lowpass_module():
    return julius.LowPassFilters([0.1, 0.25]), (torch.randn(2, 2000),), {}


def call_split_bands():
    return julius.split_bands, (torch.randn(1, 4000), 16000), {"n_bands": 4}
