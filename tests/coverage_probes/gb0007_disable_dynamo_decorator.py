"""GB0007 Attempted to call function marked as skipped: a function of the tree decorated with torch's
own `@torch._disable_dynamo` (GM620), whose wrapper is on Dynamo's skip list."""

import torch


@torch._disable_dynamo
def helper(x: torch.Tensor) -> torch.Tensor:
    return x + 1


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        y = helper(y)  # graph-break: GB0007 GM620
        return y + 1


def inputs():
    return (torch.ones(3),)
