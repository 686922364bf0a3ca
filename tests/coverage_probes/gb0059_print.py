"""GB0059 Failed to trace builtin operator: `print` in traced code (GM401)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        print("forward done")  # graph-break: GB0059 GM401
        return x - 1


def inputs():
    return (torch.ones(3),)
