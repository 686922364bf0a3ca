"""GB0059 Failed to trace builtin operator: `range()` of a tensor (GM304)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor, steps: torch.Tensor) -> torch.Tensor:
        x = x * 2
        for _ in range(steps.long()):  # graph-break: GB0059 GM304
            x = x + 1
        return x


def inputs():
    return (torch.ones(3), torch.tensor(2))
