import math
from typing import Optional

import torch
from torch import nn

from .cache import KVCache
from .config import Seq2SeqConfig

__all__ = ["Seq2Seq", "Seq2SeqConfig"]


class Layer(nn.Module):
    def __init__(self, config: Seq2SeqConfig) -> None:
        super().__init__()
        self.attn = nn.MultiheadAttention(config.dim, 2, batch_first=True)
        self.ffn = nn.Linear(config.dim, config.dim)

    def forward(self, hidden, memory=None, cache: Optional[KVCache] = None):
        source = hidden if memory is None else memory
        if cache is not None:
            source = cache.update(source)
        out, _ = self.attn(hidden, source, source, need_weights=False)
        return hidden + self.ffn(out)


class Stack(nn.Module):
    def __init__(self, config: Seq2SeqConfig, cross: bool) -> None:
        super().__init__()
        self.config = config
        self.cross = cross
        self.layers = nn.ModuleList([Layer(config) for _ in range(config.layers)])
        self.positions = nn.Embedding(config.max_positions, config.dim)

    def forward(self, hidden, memory=None, past_key_values=None):
        past_length = past_key_values.get_seq_length() if past_key_values is not None else 0
        seq_len = hidden.shape[1]
        if past_length + seq_len > self.config.max_positions:
            raise ValueError("sequence too long")
        positions = torch.arange(past_length, past_length + seq_len)
        hidden = hidden + self.positions(positions)
        for layer in self.layers:
            hidden = layer(hidden, memory if self.cross else None)
        return hidden


class Seq2Seq(nn.Module):
    def __init__(self, config: Seq2SeqConfig) -> None:
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab, config.dim)
        self.encoder = Stack(config, cross=False)
        self.decoder = Stack(config, cross=True)
        self.embed_scale = math.sqrt(config.dim) if config.scale_embedding else 1.0

    def forward(self, input_ids, decoder_input_ids, past_key_values=None):
        memory = self.encoder(self.embed(input_ids) * self.embed_scale)
        hidden = self.decoder(self.embed(decoder_input_ids), memory, past_key_values=past_key_values)
        return hidden @ self.embed.weight.t()


def compiled_model(config: Seq2SeqConfig) -> Seq2Seq:
    model = Seq2Seq(config)
    model.compile()
    return model
