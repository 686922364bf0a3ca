"""Rotary position embeddings with a LongRoPE-style switch for long sequences."""

import torch
from torch import nn

from tinyformer.config import TinyConfig


def inverse_frequencies(dim: int, theta: float) -> torch.Tensor:
    return 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))


def select_frequencies(position_ids, short_inv_freq, long_inv_freq, original_max_positions):
    seq_len = torch.max(position_ids) + 1
    if seq_len > original_max_positions:
        inv_freq = long_inv_freq
    else:
        inv_freq = short_inv_freq
    return inv_freq


class RotaryEmbedding(nn.Module):
    def __init__(self, config: TinyConfig) -> None:
        super().__init__()
        dim = config.hidden_size // config.num_heads
        short = inverse_frequencies(dim, config.rope_theta)
        self.register_buffer("short_inv_freq", short, persistent=False)
        self.register_buffer("long_inv_freq", short / config.long_factor, persistent=False)
        self.original_max_positions = config.original_max_position_embeddings

    def forward(self, x, position_ids):
        inv_freq = select_frequencies(
            position_ids, self.short_inv_freq, self.long_inv_freq, self.original_max_positions
        )
        freqs = position_ids[:, :, None].float() * inv_freq[None, None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(x.dtype), emb.sin().to(x.dtype)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rotary(q, k, cos, sin):
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
