"""asteroid-filterbanks: the audio source-separation toolkit's learnable and fixed filterbanks.

Users put an Encoder (waveform -> time-frequency) and a Decoder (back) around a separation
network and compile the whole model; the complex-spectrum helpers are called in between.
"""

from __future__ import annotations

import torch
from asteroid_filterbanks import STFTFB, Decoder, Encoder, FreeFB, ParamSincFB
from asteroid_filterbanks.transforms import mag

DISTRIBUTION = "asteroid-filterbanks"
PACKAGE = "asteroid_filterbanks"
WHY = "audio: STFT / SincNet / free filterbanks as encoder-decoder modules (source separation)"


def _waveform() -> torch.Tensor:
    return torch.randn(2, 1, 800)


def call_stft_encoder():
    return Encoder(STFTFB(n_filters=64, kernel_size=32, stride=16)), (_waveform(),), {}


def call_param_sinc_encoder():
    return Encoder(ParamSincFB(n_filters=32, kernel_size=65, stride=16)), (_waveform(),), {}


def _free_roundtrip(encoder: Encoder, decoder: Decoder, waveform: torch.Tensor) -> torch.Tensor:
    spec = encoder(waveform)
    return decoder(spec * mag(spec).sigmoid().repeat(1, 2, 1), length=waveform.shape[-1])


def call_free_encoder_decoder():
    bank = FreeFB(n_filters=32, kernel_size=16, stride=8)
    return (
        _free_roundtrip,
        (Encoder(bank), Decoder(FreeFB(n_filters=32, kernel_size=16, stride=8)), _waveform()),
        {},
    )
