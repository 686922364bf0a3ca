"""GB0008 Attempted to inline function marked as skipped: `secrets.token_hex()`, a Python function
Dynamo inlines, calls a method of `random.SystemRandom` (module `random` is on its skip list); it breaks at the
caller's line (GM640, benchmarks/skipped_callees.py)."""

import secrets

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        tag = secrets.token_hex()  # graph-break: GB0008 GM640
        return x + len(tag)


def inputs():
    return (torch.ones(3),)
