"""nnAudio: GPU spectrograms as nn.Modules (STFT, Mel, CQT) built from convolution kernels.

Users compile the front end together with their audio model.
"""

from __future__ import annotations

import torch
from nnAudio import features

DISTRIBUTION = "nnAudio"
PACKAGE = "nnAudio"
WHY = "audio: trainable spectrogram front ends (STFT, Mel, CQT)"


def call_mel_spectrogram():
    return features.MelSpectrogram(sr=16000, n_fft=512, n_mels=32, verbose=False), (torch.randn(2, 4000),), {}


def call_stft():
    return features.STFT(n_fft=256, hop_length=64, verbose=False), (torch.randn(2, 4000),), {}


def call_cqt():
    return features.CQT1992v2(sr=16000, n_bins=24, fmin=100, verbose=False), (torch.randn(1, 4000),), {}
