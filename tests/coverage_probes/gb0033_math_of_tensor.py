"""GB0033 Data dependent operator: a `math` function given a tensor reads its value back (GM302)."""

import math

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        peak = x.abs().amax()
        return x / math.sqrt(peak)  # graph-break: GB0033 GM302


def inputs():
    return (torch.arange(1.0, 5.0),)
