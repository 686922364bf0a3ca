import warnings

import torch
from torch import nn

from tinyformer.config import TinyConfig
from tinyformer.layers import DecoderLayer, logger
from tinyformer.rope import RotaryEmbedding


def check_input_ids(input_ids, vocab_size):
    if (input_ids >= vocab_size).any():
        raise ValueError("input_ids contains ids outside the vocabulary")


class TinyFormerModel(nn.Module):
    def __init__(self, config: TinyConfig) -> None:
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab_size, config.hidden_size)
        self.rotary = RotaryEmbedding(config)
        self.layers = nn.ModuleList(DecoderLayer(config) for _ in range(config.num_layers))
        self.norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)

    def forward(self, input_ids, attention_mask=None, position_ids=None, use_cache=False):
        if self.config.check_inputs:
            check_input_ids(input_ids, self.config.vocab_size)
        if use_cache:
            logger.warning_once("TinyFormer has no KV cache; `use_cache=True` is ignored.")
        if position_ids is None:
            position_ids = torch.arange(input_ids.shape[1], device=input_ids.device)[None, :]
        hidden_states = self.embed(input_ids)
        cos, sin = self.rotary(hidden_states, position_ids)
        for layer in self.layers:
            hidden_states = layer(hidden_states, cos, sin, attention_mask)
        return self.norm(hidden_states)


class TinyFormerForCausalLM(nn.Module):
    def __init__(self, config: TinyConfig) -> None:
        super().__init__()
        self.model = TinyFormerModel(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)

    def forward(self, input_ids, attention_mask=None, labels=None, logit_scale=None):
        hidden_states = self.model(input_ids, attention_mask)
        logits = self.lm_head(hidden_states)
        if logit_scale is not None:
            warnings.warn("logit_scale is deprecated; scale the logits yourself", FutureWarning)
            logits = logits * logit_scale
        loss = None
        if labels is not None:
            num_tokens = (labels != -100).sum().item()
            loss = nn.functional.cross_entropy(
                logits.view(-1, logits.shape[-1]), labels.view(-1), ignore_index=-100, reduction="sum"
            ) / num_tokens
        return logits, loss
