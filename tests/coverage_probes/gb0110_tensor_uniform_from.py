"""GB0110 Tensor.uniform_ op called with `from` keyword (GM621)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        x = x + 1
        u = torch.empty(3).uniform_(**{"from": 0.0, "to": 1.0})  # graph-break: GB0110 GM621
        x = x + u + torch.empty(3).uniform_(0.0, 1.0)  # bounds by position: traced
        return x - 1


def inputs():
    return (torch.ones(3),)
