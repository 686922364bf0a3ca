"""GB4297 Call to `torch._dynamo.skip_frame()` (GM603)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        torch._dynamo.skip_frame()  # graph-break: GB4297 GM603
        return x - 1


def inputs():
    return (torch.ones(3),)
