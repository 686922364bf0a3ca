"""GB0007 Attempted to call function marked as skipped: `torch.save` in traced code (GM601)."""

import io

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        torch.save(x, io.BytesIO())  # graph-break: GB0007 GM601
        return x - 1


def inputs():
    return (torch.ones(3),)
