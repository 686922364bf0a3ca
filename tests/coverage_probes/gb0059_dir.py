"""GB0059: Failed to trace builtin operator: `dir()`."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        names = dir(self)  # graph-break: GB0059 GM604
        return x + len(names)


def inputs() -> tuple:
    return (torch.randn(4),)
