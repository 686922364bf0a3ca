"""GB0007 Attempted to call function marked as skipped: a clock read in traced code (GM604)."""

import time

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        start = time.perf_counter()  # graph-break: GB0007 GM604
        return x + start


def inputs():
    return (torch.ones(3),)
