"""GB0036: Dynamic shape operator: one-argument `torch.repeat_interleave(counts)`."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        counts = (x > 0).long() + 1
        return torch.repeat_interleave(counts).sum()  # graph-break: GB0036 GM503


def inputs() -> tuple:
    return (torch.randn(4),)
