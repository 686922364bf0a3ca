"""reformer-pytorch: the Reformer (LSH attention, reversible layers, chunked feed-forward), lucidrains.

Users compile the language model's forward (token ids to logits) or the LSH self-attention layer
inside their own model.
"""

from __future__ import annotations

import torch
from reformer_pytorch import Autopadder, LSHSelfAttention, ReformerLM

DISTRIBUTION = "reformer-pytorch"
PACKAGE = "reformer_pytorch"
WHY = "sequence models: LSH-attention transformer language model with reversible layers"


def _lm(**options: object) -> ReformerLM:
    torch.manual_seed(0)
    return ReformerLM(num_tokens=64, dim=32, depth=2, max_seq_len=64, heads=2, dim_head=16, bucket_size=8,
                      n_hashes=2, ff_chunks=2, **options)  # fmt: skip


def call_causal_lm_forward():
    return (
        _lm(causal=True, axial_position_emb=True, axial_position_shape=(8, 8)),
        (torch.randint(0, 64, (2, 64)),),
        {},
    )


def call_autopadded_lm_forward():
    # Autopadder pads a sequence that is no multiple of the bucket size (the README's advice)
    return Autopadder(_lm(n_local_attn_heads=1)), (torch.randint(0, 64, (2, 50)),), {}


def call_lsh_self_attention():
    torch.manual_seed(0)
    attention = LSHSelfAttention(dim=32, heads=4, bucket_size=8, n_hashes=2, causal=False)
    return attention, (torch.randn(2, 64, 32),), {}
