"""x-transformers: research transformer variants (lucidrains), configured by keyword flags.

Users compile a decoder-only language model's forward, its autoregressive training loss (also with
layer dropout, the stochastic depth the README documents), an encoder with rotary embeddings on
continuous inputs, and the sampling loop.
"""

from __future__ import annotations

import random

import torch
from x_transformers import (
    AutoregressiveWrapper,
    ContinuousTransformerWrapper,
    Decoder,
    Encoder,
    TransformerWrapper,
)

DISTRIBUTION = "x-transformers"
PACKAGE = "x_transformers"
WHY = "research-paper implementations: many attention/positional variants behind flags"


def _decoder_lm():
    return TransformerWrapper(num_tokens=64, max_seq_len=32, attn_layers=Decoder(dim=32, depth=2, heads=4))


def call_decoder_forward():
    return _decoder_lm().eval(), (torch.randint(0, 64, (2, 16)),), {}


def call_autoregressive_loss():
    return AutoregressiveWrapper(_decoder_lm()), (torch.randint(0, 64, (2, 17)),), {}


def call_autoregressive_loss_layer_dropout():
    """Training with `layer_dropout` (stochastic depth): each layer draws Python's `random()`.

    Added in session 5, after the analysis work: the four calls above never trained with layer
    dropout, so GM604's one executed finding (`random() < layer_dropout`, x_transformers.py:3646)
    sat on a line whose `random()` the `and` short-circuited; this call takes that branch."""
    random.seed(0)  # which layers drop must not differ between the runs rewrite_check compares
    model = TransformerWrapper(
        num_tokens=64, max_seq_len=32, attn_layers=Decoder(dim=32, depth=2, heads=4, layer_dropout=0.1)
    )
    return AutoregressiveWrapper(model), (torch.randint(0, 64, (2, 17)),), {}


def call_continuous_encoder_rotary():
    model = ContinuousTransformerWrapper(
        dim_in=6, dim_out=4, max_seq_len=32, attn_layers=Encoder(dim=32, depth=2, heads=4, rotary_pos_emb=True)
    )
    mask = torch.ones(2, 16, dtype=torch.bool)
    return model.eval(), (torch.randn(2, 16, 6),), {"mask": mask}


def call_generate():
    wrapper = AutoregressiveWrapper(_decoder_lm()).eval()
    return wrapper.generate, (torch.randint(0, 64, (1, 4)), 4), {}
