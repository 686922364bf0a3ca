"""GB0142 Unsupported context manager: `with open(...)` in traced code (GM602)."""

import os

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        with open(os.devnull, "a") as handle:  # graph-break: GB0142 GM602
            handle.write("x")
        return x - 1


def inputs():
    return (torch.ones(3),)
