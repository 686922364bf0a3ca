"""local-attention: windowed (local) attention and a local-attention transformer (lucidrains).

Users compile the attention module inside their model, or the whole LocalTransformer.
"""

from __future__ import annotations

import torch
from local_attention import LocalAttention, LocalTransformer

DISTRIBUTION = "local-attention"
PACKAGE = "local_attention"
WHY = "NLP: sliding-window attention for long sequences"


def call_local_attention():
    attention = LocalAttention(dim=16, window_size=4, causal=True, look_backward=1)
    q, k, v = (torch.randn(2, 2, 16, 16) for _ in range(3))
    return attention, (q, k, v), {}


def call_local_transformer():
    model = LocalTransformer(num_tokens=64, dim=32, depth=2, max_seq_len=32, causal=True, local_attn_window_size=8).eval()
    return model, (torch.randint(0, 64, (1, 16)),), {}
