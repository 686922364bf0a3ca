"""auraloss: audio-focused loss functions (spectral, time-domain).

Users compile their training step, which calls the loss module.
"""

from __future__ import annotations

import auraloss
import torch

DISTRIBUTION = "auraloss"
PACKAGE = "auraloss"
WHY = "audio: multi-resolution STFT and SI-SDR losses for speech/music models"


def call_multi_resolution_stft():
    loss = auraloss.freq.MultiResolutionSTFTLoss(fft_sizes=[256, 512], hop_sizes=[64, 128], win_lengths=[256, 512])
    return loss, (torch.randn(2, 1, 4000), torch.randn(2, 1, 4000)), {}


def call_sisdr():
    return auraloss.time.SISDRLoss(), (torch.randn(2, 1, 4000), torch.randn(2, 1, 4000)), {}
