"""GB0128 Unsupported Tensor.set_() call: with a storage offset, size and stride (GM621)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        x = x + 1
        s = torch.zeros(4)
        s.set_(x.clone(), 0, (3,), (1,))  # graph-break: GB0128 GM621
        return x - 1


def inputs():
    return (torch.ones(3),)
