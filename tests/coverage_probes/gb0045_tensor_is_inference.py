"""GB0045 Encountered tensor.is_inference() during tracing: `x.is_inference()` (GM621)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        x = x + float(x.is_inference())  # graph-break: GB0045 GM621
        return x - 1


def inputs():
    return (torch.ones(3),)
