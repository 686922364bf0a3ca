"""GB0059: Failed to trace builtin operator: `open(...)` outside a `with`."""

import os

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        name = open(os.devnull).name  # noqa: SIM115  # graph-break: GB0059 GM602
        return x + len(name)


def inputs() -> tuple:
    return (torch.randn(4),)
