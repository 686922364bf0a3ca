"""GB0036 Dynamic shape operator: indexing with a mask padded, flipped or reshaped (GM502, analysis/masks.py)."""

import torch
import torch.nn.functional as F


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        changes = F.pad(x.diff(dim=-1) != 0, [0, 1], value=1.0)
        kept = x[changes]  # graph-break: GB0036 GM502
        return kept + 1


def inputs():
    return (torch.tensor([1.0, 1.0, 2.0, 3.0]),)
