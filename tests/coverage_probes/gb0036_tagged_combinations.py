"""GB0036: Dynamic shape operator: `torch.combinations`, whose aten decomposition selects with a
mask (`aten.masked_select`, tagged `dynamic_output_shape`)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        return torch.combinations(x).sum()  # graph-break: GB0036 GM501


def inputs() -> tuple:
    return (torch.randn(4),)
