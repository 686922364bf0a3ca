"""GB0207 sort with non-constant keys: `sorted` with a key that computes a tensor (GM618)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        parts = [x * 2, x + 1]
        ranked = sorted(parts, key=lambda t: t.norm())  # graph-break: GB0207 GM618
        return ranked[0] + 1


def inputs():
    return (torch.ones(3),)
