"""GB0291 logging.Logger method not supported for non-export cases: a logger call (GM402)."""

import logging

import torch

logger = logging.getLogger(__name__)


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        logger.info("shape %s", x.shape)  # graph-break: GB0291 GM402
        return x - 1


def inputs():
    return (torch.ones(3),)
