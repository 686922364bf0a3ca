"""performer-pytorch: Performer (FAVOR+ linear attention, lucidrains) language models.

Users compile the language model's forward and the attention layer.
"""

from __future__ import annotations

import torch
from performer_pytorch import PerformerLM, SelfAttention

DISTRIBUTION = "performer-pytorch"
PACKAGE = "performer_pytorch"
WHY = "NLP: linear-attention transformers with random-feature projections (redrawn during training)"


def call_performer_lm():
    model = PerformerLM(num_tokens=64, max_seq_len=32, dim=32, depth=2, heads=2, dim_head=16, causal=True, nb_features=16)
    return model.eval(), (torch.randint(0, 64, (1, 16)),), {}


def call_self_attention():
    return SelfAttention(dim=32, heads=2, dim_head=16, nb_features=16).eval(), (torch.randn(1, 16, 32),), {}
