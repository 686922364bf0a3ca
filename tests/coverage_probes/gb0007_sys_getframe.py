"""GB0007: Attempted to call function marked as skipped: `sys._getframe`."""

import sys

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        caller = sys._getframe(0).f_code.co_name  # graph-break: GB0007 GM604
        return x + len(caller)


def inputs() -> tuple:
    return (torch.randn(4),)
