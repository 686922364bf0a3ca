"""Validation guards: raising on tensor values (breaks) and on shapes (static)."""

import torch
from torch import nn


class CheckedAttention(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        if x.dim() != 3:
            raise ValueError(f"expected (batch, seq, dim), got {tuple(x.shape)}")
        if (lengths > x.shape[1]).any():
            raise ValueError("a length exceeds the sequence")
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = torch.softmax(q @ k.transpose(1, 2), dim=-1)
        if torch.isnan(scores).any():
            raise RuntimeError("NaN in attention scores")
        return scores @ v


def case():
    return CheckedAttention(8).eval(), (torch.randn(2, 5, 8), torch.tensor([3, 5]))
