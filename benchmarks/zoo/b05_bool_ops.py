"""`and` / `or` / `not` converting tensors to Python bools, next to static uses of them."""

from typing import Optional

import torch
from torch import nn


class MaskedMean(nn.Module):
    def forward(self, x: torch.Tensor, mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        x = x * 3
        use_mask = mask is not None and x.dim() == 2  # static
        valid = (x > 0).any() and (x < 10).all()
        if not valid:
            x = x.clamp(0, 10)
        if use_mask:
            x = x * mask
        fallback = x.sum() or torch.ones(())
        return x.mean() + fallback


def case():
    return MaskedMean(), (torch.randn(4, 4), torch.ones(4, 4))
