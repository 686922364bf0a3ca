"""GB0036: Dynamic shape operator: indexing with a mask combined with `&`."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        x = x * 2
        mask = (x > 0) & (y < 1)
        return x[mask].sum()  # graph-break: GB0036 GM502


def inputs() -> tuple:
    return (torch.randn(4), torch.randn(4))
