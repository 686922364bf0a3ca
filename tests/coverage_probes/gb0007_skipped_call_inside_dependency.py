"""GB0007 Attempted to call function marked as skipped inside an installed package, reported at
the call (GM608).

Checked with `dependencies: [fakedep]` (tests/fixtures/dependency/site)."""

import torch
from fakedep.clock import timed


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.sin(x)
        x = timed(x)  # graph-break: GB0007 GM608
        return torch.cos(x)


def inputs():
    return (torch.ones(3),)
