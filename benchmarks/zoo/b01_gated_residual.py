"""A gated residual block whose gate is decided by the activation's sign (data-dependent `if`)."""

import torch
from torch import nn


class GatedResidual(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.proj(x)
        if h.sum() > 0:
            h = torch.relu(h)
        if x.shape[-1] > 2:  # static: shapes are guarded, not traced as data
            h = self.norm(h)
        return x + h


def case():
    return GatedResidual(8).eval(), (torch.randn(4, 8),)
