"""GB0059: Failed to trace builtin operator: `str()` of a tensor."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        text = str(x)  # graph-break: GB0059 GM604
        return x + len(text)


def inputs() -> tuple:
    return (torch.randn(4),)
