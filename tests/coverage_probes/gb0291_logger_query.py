"""GB0291 logging.Logger method not supported for non-export cases: a level check,
`logger.isEnabledFor(...)`, which emits no record (GM694)."""

import logging

import torch

logger = logging.getLogger(__name__)


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        verbose = logger.isEnabledFor(logging.DEBUG)  # graph-break: GB0291 GM694
        return x + 1 if verbose else x - 1


def inputs():
    return (torch.ones(3),)
