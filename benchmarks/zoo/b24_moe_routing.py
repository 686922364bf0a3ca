"""Mixture-of-experts routing: top-k gates, then per-expert token selection with torch.where(mask)."""

import torch
from torch import nn


class SparseMoE(nn.Module):
    def __init__(self, dim: int = 8, experts: int = 4, top_k: int = 2) -> None:
        super().__init__()
        self.top_k = top_k
        self.gate = nn.Linear(dim, experts)
        self.experts = nn.ModuleList([nn.Linear(dim, dim) for _ in range(experts)])

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        weights, chosen = torch.topk(self.gate(tokens).softmax(-1), self.top_k, dim=-1)
        out = torch.zeros_like(tokens)
        for index, expert in enumerate(self.experts):
            rows, slots = torch.where(chosen == index)
            out.index_add_(0, rows, expert(tokens[rows]) * weights[rows, slots, None])
        return torch.where(out > 0, out, out * 0.5)  # the three-argument form is dense


def case():
    return SparseMoE().eval(), (torch.randn(6, 8),)
