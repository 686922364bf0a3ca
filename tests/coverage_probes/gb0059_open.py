"""GB0059: Failed to trace builtin operator: `open(...)` outside a `with`."""

import os

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        handle = open(os.devnull)  # graph-break: GB0059 GM602
        return x + 1


def inputs() -> tuple:
    return (torch.randn(4),)
