"""GB0033 Data dependent operator: `if not torch.equal(...)` that raises (GM201, the Python-bool id)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        x = x * 2
        if not torch.equal(x, y):  # graph-break: GB0033 GM201
            raise ValueError("inputs differ")
        return x - 1


def inputs():
    return (torch.ones(3), torch.full((3,), 2.0))
