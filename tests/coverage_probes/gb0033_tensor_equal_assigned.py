"""GB0033 Data dependent operator: `torch.equal` whose Python bool is kept (GM105)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        x = x * 2
        equal = torch.equal(x, y)  # graph-break: GB0033 GM105
        return x + equal


def inputs():
    return (torch.ones(3), torch.ones(3))
