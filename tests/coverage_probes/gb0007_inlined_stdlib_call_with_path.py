"""GB0007 Attempted to call function marked as skipped: `os.path.exists(path)`, a Python function
Dynamo inlines, calls `os.stat`, a C function its trace rules skip; it breaks at the caller's line
(GM640: benchmarks/skipped_callees.py measures the inlined functions with required arguments too)."""

import os

import torch


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.cache_path = "missing.pt"

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        if os.path.exists(self.cache_path):  # graph-break: GB0007 GM640
            x = x + 1
        return x + 1


def inputs():
    return (torch.ones(3),)
