"""GB0033 Data dependent operator: `torch.equal(...) and ...` breaks at the read (GM105); the `and`
then tests a Python bool."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        x = x * 2
        same = torch.equal(x, y) and x.dim() == 1  # graph-break: GB0033 GM105
        return x + same


def inputs():
    return (torch.ones(3), torch.ones(3))
