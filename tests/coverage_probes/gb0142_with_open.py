"""GB0142: Unsupported context manager: `with open(...)`."""

import os

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        with open(os.devnull) as handle:  # graph-break: GB0142 GM602
            handle.read()
        return x + 1


def inputs() -> tuple:
    return (torch.randn(4),)
