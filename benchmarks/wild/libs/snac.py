"""snac (Hubert Siuzdak): SNAC, a multi-scale neural audio codec (residual vector quantisation at
several temporal resolutions, local windowed attention).

Users compile the codec's forward (reconstruction and codes), its `encode` to discrete codes (a
tokenizer for audio language models) and its `decode` from codes, here on a small randomly initialised
codec (its local attention needs 64 channels a head; the pretrained ones download weights).
"""

from __future__ import annotations

import torch
from snac import SNAC

DISTRIBUTION = "snac"
PACKAGE = "snac"
WHY = "audio: multi-scale neural audio codec (tokenizer for speech and music language models)"


def _codec() -> SNAC:
    torch.manual_seed(0)
    return SNAC(
        sampling_rate=16000, encoder_dim=16, encoder_rates=[2, 4], decoder_dim=64, decoder_rates=[4, 2],
        attn_window_size=8, codebook_size=64, codebook_dim=4, vq_strides=[4, 2, 1],
    ).eval()  # fmt: skip


def call_codec_forward():
    return _codec(), (torch.randn(1, 1, 1000),), {}


def call_encode():
    codec = _codec()
    return codec.encode, (torch.randn(2, 1, 640),), {}


def call_decode():
    codec = _codec()
    with torch.no_grad():
        codes = codec.encode(torch.randn(1, 1, 640))
    return codec.decode, (codes,), {}
