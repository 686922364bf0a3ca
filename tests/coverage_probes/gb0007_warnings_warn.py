"""GB0007 Attempted to call function marked as skipped: `warnings.warn` (GM403)."""

import warnings

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        warnings.warn("scale=None is deprecated", FutureWarning)  # graph-break: GB0007 GM403
        return x - 1


def inputs():
    return (torch.ones(3),)
