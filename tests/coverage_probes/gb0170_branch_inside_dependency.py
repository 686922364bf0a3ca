"""GB0170 Data-dependent branching inside an installed package, reported at the call (GM608).

Checked with `dependencies: [fakedep]` (tests/fixtures/dependency/site)."""

import torch
from fakedep.ops import branching


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.sin(x)
        x = branching(x)  # graph-break: GB0170 GM608
        return torch.cos(x)


def inputs():
    return (torch.ones(3),)
