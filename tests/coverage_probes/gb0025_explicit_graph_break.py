"""GB0025 Call to `torch._dynamo.graph_break()` (GM603)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        torch._dynamo.graph_break()  # graph-break: GB0025 GM603
        return x - 1


def inputs():
    return (torch.ones(3),)
