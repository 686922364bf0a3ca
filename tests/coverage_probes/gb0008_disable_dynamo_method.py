"""GB0008 Attempted to inline function marked as skipped: a method decorated with torch's own
`@torch._disable_dynamo`, called through `self` (GM620)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        y = self.helper(y)  # graph-break: GB0008 GM620
        return y + 1

    @torch._disable_dynamo
    def helper(self, x: torch.Tensor) -> torch.Tensor:
        return x + 1


def inputs():
    return (torch.ones(3),)
