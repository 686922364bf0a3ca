"""MEGABYTE-pytorch: a tokenizer-free multiscale transformer over raw bytes (Yu et al. 2023).

Users compile the model's forward on byte sequences: the training loss (`return_loss=True`), the
logits of a batch given as flat byte strings and as patches (one axis per stage), and the
two-stage model with rotary relative positions.
"""

from __future__ import annotations

import torch
from MEGABYTE_pytorch import MEGABYTE

DISTRIBUTION = "MEGABYTE-pytorch"
PACKAGE = "MEGABYTE_pytorch"
WHY = "NLP / sequence: tokenizer-free byte-level language model (global and local transformers)"


def _model(**kwargs) -> MEGABYTE:
    torch.manual_seed(0)
    config = dict(num_tokens=256, dim=(32, 16), depth=(1, 1), max_seq_len=(8, 4), dim_head=8, heads=2)
    return MEGABYTE(**{**config, **kwargs})


def _bytes(*shape: int) -> torch.Tensor:
    torch.manual_seed(1)
    return torch.randint(0, 256, shape)


def call_training_loss():
    model = _model()
    return model, (_bytes(2, 32),), {"return_loss": True}


def call_logits_patched():
    return _model(), (_bytes(2, 8, 4),), {}


def call_rotary_logits():
    return _model(rel_pos=True, pos_emb=True), (_bytes(2, 20),), {}
