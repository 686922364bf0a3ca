"""GB0193 invalid call to builtin op handler: `max(items, key=...)` over tensors (GM627)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        parts = [x * 2, x[:1] + 1]
        widest = max(parts, key=lambda t: t.shape[0])  # graph-break: GB0193 GM627
        return widest + 1


def inputs():
    return (torch.ones(3),)
