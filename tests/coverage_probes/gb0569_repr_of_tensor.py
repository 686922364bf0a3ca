"""GB0569: repr() on tensor."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        text = repr(x)  # graph-break: GB0569 GM604
        return x + len(text)


def inputs() -> tuple:
    return (torch.randn(4),)
