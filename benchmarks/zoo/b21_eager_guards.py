"""Eager-only code fenced by compile guards, as transformers 5 does (never reported)."""

import logging
import warnings

import torch
from torch import nn

logger = logging.getLogger(__name__)


def is_torchdynamo_compiling() -> bool:
    return torch.compiler.is_compiling()


class Guarded(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.relu()
        if not is_torchdynamo_compiling():
            if (x < 0).any():
                raise ValueError("relu produced negatives")
            logger.warning("checked %s", x.shape)
            warnings.warn("eager path")
        if torch.compiler.is_compiling() or x.numel() < 100:
            x = x + 1
        return x


def case():
    return Guarded(), (torch.randn(3, 3),)
