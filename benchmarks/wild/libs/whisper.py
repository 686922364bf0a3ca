"""openai-whisper: speech recognition (Radford et al., 2022), built from ModelDimensions, random weights.

Users compile the log-mel front end, the encoder-decoder forward, and the decoder step with the
key/value cache that decoding installs through forward hooks.
"""

from __future__ import annotations

import torch
from whisper.audio import log_mel_spectrogram
from whisper.model import ModelDimensions, Whisper

DISTRIBUTION = "openai-whisper"
PACKAGE = "whisper"
WHY = "audio/speech: the reference ASR model; installed --no-deps (its triton pin) plus real deps"

DIMS = ModelDimensions(
    n_mels=80, n_audio_ctx=50, n_audio_state=64, n_audio_head=4, n_audio_layer=2,
    n_vocab=512, n_text_ctx=16, n_text_state=64, n_text_head=4, n_text_layer=2,
)  # fmt: skip


def _model() -> Whisper:
    """A model whose every parameter is initialised: the decoder's positional embedding is
    `torch.empty` (checkpoints fill it), and uninitialised memory differs between two runs of the
    same code (measured: an unmodified copy of the package at another path gave another output)."""
    model = Whisper(DIMS).eval()
    torch.nn.init.normal_(model.decoder.positional_embedding, std=0.02)
    return model


def call_log_mel_spectrogram():
    return log_mel_spectrogram, (torch.randn(16000),), {}


def call_forward():
    mel, tokens = torch.randn(2, 80, 100), torch.randint(0, 512, (2, 8))
    return _model(), (mel, tokens), {}


def call_embed_audio():
    return _model().embed_audio, (torch.randn(1, 80, 100),), {}


def call_decoder_with_kv_cache():
    model = _model()
    cache, _hooks = model.install_kv_cache_hooks()
    audio_features = model.embed_audio(torch.randn(1, 80, 100))
    tokens = torch.randint(0, 512, (1, 4))
    return model.decoder, (tokens, audio_features), {"kv_cache": cache}
