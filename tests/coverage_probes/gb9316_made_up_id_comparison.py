"""GB9316 Comparison on compile-time-only id or hash value: `id()` of a dict built in traced code compared with a number (GM681)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        cache = {}
        x = x * 2
        if id(cache) != 0:  # graph-break: GB9316 GM681
            x = x + 1
        return x


def inputs():
    return (torch.ones(3),)
