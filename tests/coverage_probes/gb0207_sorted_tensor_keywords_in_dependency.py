"""GB0207 sort with non-constant keys: a tensor passed by a keyword the dependency sorts (GM608).

Checked with `dependencies: [fakedep]` (tests/fixtures/dependency/site), as every probe that
imports fakedep."""

import torch
from fakedep.ops import scaled


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        return scaled(x, weight=x)  # graph-break: GB0207 GM608


def inputs():
    return (torch.ones(3),)
