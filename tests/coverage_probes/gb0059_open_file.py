"""GB0059 Failed to trace builtin operator: `open()` in traced code (GM602)."""

import os

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        handle = open(os.devnull, "a")  # graph-break: GB0059 GM602
        handle.close()  # graph-break: GB0156 -
        return x - 1


def inputs():
    return (torch.ones(3),)
