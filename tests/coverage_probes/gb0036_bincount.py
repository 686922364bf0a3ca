"""GB0036: Dynamic shape operator: `torch.bincount`, whose length is the largest value plus one."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        return torch.bincount(x.long().abs()).sum()  # graph-break: GB0036 GM501


def inputs() -> tuple:
    return (torch.randn(4),)
