"""pytorch-metric-learning: metric-learning losses and miners over embeddings and labels.

Users compile the training step: embeddings, a miner picking pairs or triplets, the loss.
"""

from __future__ import annotations

import torch
from pytorch_metric_learning import losses, miners

DISTRIBUTION = "pytorch-metric-learning"
PACKAGE = "pytorch_metric_learning"
WHY = "metrics / representation learning: contrastive, triplet and proxy losses, miners"


def _batch() -> tuple[torch.Tensor, torch.Tensor]:
    return torch.randn(16, 8), torch.randint(0, 4, (16,))


def call_triplet_margin_loss():
    return losses.TripletMarginLoss(margin=0.1), _batch(), {}


def call_ntxent_loss():
    return losses.NTXentLoss(temperature=0.1), _batch(), {}


class _MinedLoss(torch.nn.Module):
    """A training loss as the library's examples write it: a miner picks pairs, the loss uses them."""

    def __init__(self) -> None:
        super().__init__()
        self.miner = miners.MultiSimilarityMiner(epsilon=0.1)
        self.loss = losses.MultiSimilarityLoss()

    def forward(self, embeddings: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return self.loss(embeddings, labels, self.miner(embeddings, labels))


def call_miner_and_loss():
    return _MinedLoss(), _batch(), {}
