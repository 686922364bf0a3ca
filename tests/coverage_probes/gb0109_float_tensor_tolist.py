"""GB0109 Tensor.tolist() with non-integer tensor: `.tolist()` (GM303)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        values = x.tolist()  # graph-break: GB0109 GM303
        return x + len(values)


def inputs():
    return (torch.ones(3),)
