"""GB0007 Attempted to call function marked as skipped: a standard-library C function Dynamo's
trace rules skip, from the table generated from them (GM640)."""

import heapq

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        heap: list[float] = []
        heapq.heappush(heap, 1.0)  # graph-break: GB0007 GM640
        return x + heap[0]


def inputs():
    return (torch.ones(3),)
