import math

import torch
import torch.nn.functional as F
from torch import nn

from tinyformer.config import TinyConfig
from tinyformer.logging_utils import get_logger
from tinyformer.rope import apply_rotary

logger = get_logger(__name__)


def clamp_activations(hidden_states):
    # fp16 overflow guard, as many encoder-decoder models have it
    if torch.isinf(hidden_states).any():
        clamp_value = torch.finfo(hidden_states.dtype).max - 1000
        hidden_states = torch.clamp(hidden_states, min=-clamp_value, max=clamp_value)
    return hidden_states


class Attention(nn.Module):
    def __init__(self, config: TinyConfig) -> None:
        super().__init__()
        self.num_heads = config.num_heads
        self.head_dim = config.hidden_size // config.num_heads
        self.qkv = nn.Linear(config.hidden_size, 3 * config.hidden_size)
        self.out = nn.Linear(config.hidden_size, config.hidden_size)

    def forward(self, hidden_states, cos, sin, attention_mask=None):
        batch, seq_len, _ = hidden_states.shape
        qkv = self.qkv(hidden_states).view(batch, seq_len, 3, self.num_heads, self.head_dim)
        q, k, v = qkv.unbind(dim=2)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        q, k = apply_rotary(q, k, cos, sin)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim)
        if attention_mask is not None:
            scores = scores.masked_fill(attention_mask[:, None, None, :] == 0, torch.finfo(scores.dtype).min)
        causal = torch.ones(seq_len, seq_len, dtype=torch.bool, device=scores.device).triu(1)
        scores = scores.masked_fill(causal, torch.finfo(scores.dtype).min)
        weights = F.softmax(scores, dim=-1)
        output = (weights @ v).transpose(1, 2).reshape(batch, seq_len, -1)
        return self.out(output)


class MLP(nn.Module):
    def __init__(self, config: TinyConfig) -> None:
        super().__init__()
        self.up = nn.Linear(config.hidden_size, config.intermediate_size)
        self.down = nn.Linear(config.intermediate_size, config.hidden_size)

    def forward(self, hidden_states):
        return self.down(F.gelu(self.up(hidden_states)))


class DecoderLayer(nn.Module):
    def __init__(self, config: TinyConfig) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.attn = Attention(config)
        self.norm2 = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.mlp = MLP(config)

    def forward(self, hidden_states, cos, sin, attention_mask=None):
        hidden_states = hidden_states + self.attn(self.norm1(hidden_states), cos, sin, attention_mask)
        hidden_states = hidden_states + self.mlp(self.norm2(hidden_states))
        return clamp_activations(hidden_states)
