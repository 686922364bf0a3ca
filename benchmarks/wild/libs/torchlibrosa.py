"""torchlibrosa: librosa's spectrogram, log-mel and STFT features as torch modules, plus SpecAugment.

Users compile the feature front end of an audio model (the README's Spectrogram -> LogmelFilterBank
pipeline, as in the PANNs audio-tagging models) and the SpecAugmentation applied in training.
"""

from __future__ import annotations

import torch
import torchlibrosa

DISTRIBUTION = "torchlibrosa"
PACKAGE = "torchlibrosa"
WHY = "audio: spectrogram / log-mel feature extraction and SpecAugment for audio tagging models"

_RATE = 8000


def _audio() -> torch.Tensor:
    torch.manual_seed(0)
    return torch.empty(2, _RATE).uniform_(-1, 1)


def call_logmel_pipeline():
    """The README's feature extractor: Spectrogram then LogmelFilterBank in a Sequential."""
    extractor = torch.nn.Sequential(
        torchlibrosa.Spectrogram(n_fft=512, hop_length=128),
        torchlibrosa.LogmelFilterBank(sr=_RATE, n_fft=512, n_mels=32),
    )
    return extractor, (_audio(),), {}


def call_stft():
    return torchlibrosa.STFT(n_fft=256, hop_length=64), (_audio(),), {}


def call_spec_augmentation():
    torch.manual_seed(0)
    augmenter = torchlibrosa.SpecAugmentation(
        time_drop_width=8, time_stripes_num=2, freq_drop_width=4, freq_stripes_num=2
    )
    return augmenter.train(), (torch.randn(2, 1, 64, 32),), {}
