"""A module-level `logging.getLogger` logger called from forward."""

import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class Pooler(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.dense = nn.Linear(8, 8)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        pooled = self.dense(hidden[:, 0])
        logger.info("pooled %d sequences", hidden.shape[0])
        pooled = torch.tanh(pooled)
        logger.debug("done")
        return pooled


def case():
    return Pooler().eval(), (torch.randn(2, 3, 8),)
