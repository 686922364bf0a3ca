"""GB0124 Unsupported Tensor.item() call with capture_scalar_outputs=False: `v in t`, whose
Tensor.__contains__ reads `(v == t).any()` back (GM302); Dynamo then skips the whole frame."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        if 3 in x:  # graph-break: GB0124 GM302
            return x + 1
        return x - 1


def inputs():
    return (torch.ones(3),)
