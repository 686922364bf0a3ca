"""GB0117 Unhandled args for method: `Tensor.share_memory_()`, whose handler does not take the call on 2.13 (GM621)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        x = x + 1
        s = torch.zeros(3)
        s.share_memory_()  # graph-break: GB0117 GM621
        x = x + s
        return x - 1


def inputs():
    return (torch.ones(3),)
