"""GB0033 Data dependent operator: `assert torch.equal(...)` (GM202, the Python-bool id)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        x = x * 2
        assert torch.equal(x, y), "same"  # graph-break: GB0033 GM202
        return x - 1


def inputs():
    return (torch.ones(3), torch.full((3,), 2.0))
