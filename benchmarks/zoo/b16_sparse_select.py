"""Data-dependent shapes: nonzero, boolean-mask indexing, masked_select."""

import torch
from torch import nn


class TokenSelector(nn.Module):
    def forward(self, scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        scores = scores * 2
        keep = scores > 0
        idx = torch.nonzero(keep)
        kept = values[keep]
        selected = torch.masked_select(values, keep)
        return kept.sum() + selected.mean() + idx.float().sum()


def case():
    return TokenSelector(), (torch.randn(4, 6), torch.randn(4, 6))
