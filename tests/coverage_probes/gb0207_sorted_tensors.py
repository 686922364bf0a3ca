"""GB0207 sort with non-constant keys: `sorted` of tensors with no key compares the tensors
themselves (GM618)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        totals = [x.sum(), x.amax()]
        ranked = sorted(totals)  # graph-break: GB0207 GM618
        return x * ranked[0]


def inputs():
    return (torch.ones(3),)
