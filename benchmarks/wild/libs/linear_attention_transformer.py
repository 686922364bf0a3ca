"""linear-attention-transformer: transformers with linear (kernelised) attention, local attention
heads and reversible layers (lucidrains).

Users compile the model's forward: the language model on token ids, the bare transformer on
embeddings, the image attention block on feature maps (the README's three uses).
"""

from __future__ import annotations

import torch
from linear_attention_transformer import (
    ImageLinearAttention,
    LinearAttentionTransformer,
    LinearAttentionTransformerLM,
)

DISTRIBUTION = "linear-attention-transformer"
PACKAGE = "linear_attention_transformer"
WHY = "NLP / efficient attention: linear-attention language models with local attention heads"


def call_causal_lm():
    """The README's LM, scaled down: causal, local heads beside the linear ones, reversible layers."""
    torch.manual_seed(0)
    model = LinearAttentionTransformerLM(
        num_tokens=64, dim=32, heads=4, depth=2, max_seq_len=64, causal=True, dim_head=8, blindspot_size=4,
        n_local_attn_heads=2, local_attn_window_size=16, reversible=True, ff_chunks=2,
    )  # fmt: skip
    return model.eval(), (torch.randint(0, 64, (2, 64)),), {}


def call_encoder_with_mask():
    torch.manual_seed(0)
    model = LinearAttentionTransformer(
        dim=32, heads=4, depth=2, max_seq_len=32, n_local_attn_heads=2, local_attn_window_size=8
    )
    mask = torch.ones(2, 32, dtype=torch.bool)
    mask[1, 24:] = False
    return model.eval(), (torch.randn(2, 32, 32),), {"input_mask": mask}


def call_image_attention():
    torch.manual_seed(0)
    attention = ImageLinearAttention(chan=16, heads=4, key_dim=8, value_dim=8)
    return attention.eval(), (torch.randn(2, 16, 8, 8),), {}
