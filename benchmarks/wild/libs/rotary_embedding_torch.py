"""rotary-embedding-torch: rotary position embeddings (lucidrains), used by many attention models.

Users compile attention blocks that call `rotate_queries_or_keys` on their queries and keys.
"""

from __future__ import annotations

import torch
from rotary_embedding_torch import RotaryEmbedding, apply_rotary_emb

DISTRIBUTION = "rotary-embedding-torch"
PACKAGE = "rotary_embedding_torch"
WHY = "NLP: rotary position embeddings (RoPE, xPos, axial), a building block of attention models"


def call_rotate_queries():
    rotary = RotaryEmbedding(dim=16)
    return rotary.rotate_queries_or_keys, (torch.randn(1, 2, 8, 32),), {}


def call_xpos_queries_and_keys():
    rotary = RotaryEmbedding(dim=16, use_xpos=True)
    return rotary.rotate_queries_and_keys, (torch.randn(1, 2, 8, 32), torch.randn(1, 2, 8, 32)), {}


def call_apply_rotary_emb():
    freqs = RotaryEmbedding(dim=16)(torch.arange(8))
    return apply_rotary_emb, (freqs, torch.randn(1, 2, 8, 32)), {}
