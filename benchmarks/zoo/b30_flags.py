"""HF-style flags: output_attentions / return_dict / config defaults are Python values."""

from typing import Optional

import torch
from torch import nn


class Config:
    output_attentions = False
    use_return_dict = True
    layer_norm_eps = 1e-5


class Block(nn.Module):
    def __init__(self, config: Config) -> None:
        super().__init__()
        self.config = config
        self.norm = nn.LayerNorm(4, eps=config.layer_norm_eps)

    def forward(
        self,
        hidden_states: torch.Tensor,
        attention_mask: Optional[torch.Tensor] = None,
        output_attentions: Optional[bool] = None,
        return_dict: Optional[bool] = None,
        head_mask=None,
    ):
        output_attentions = output_attentions if output_attentions is not None else self.config.output_attentions
        return_dict = return_dict if return_dict is not None else self.config.use_return_dict
        hidden_states = self.norm(hidden_states)
        if attention_mask is not None:
            hidden_states = hidden_states * attention_mask[..., None]
        attentions = (hidden_states,) if output_attentions else ()
        if not return_dict:
            return (hidden_states, *attentions)
        return {"hidden_states": hidden_states, "attentions": attentions}


def case():
    return Block(Config()).eval(), (torch.randn(2, 3, 4), torch.ones(2, 3))
