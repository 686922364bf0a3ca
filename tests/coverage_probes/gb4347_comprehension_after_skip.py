"""GB4347 Missing tp_iternext: a list comprehension in a frame Dynamo skipped (GM611)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + 1
        order = [1, 0]
        try:
            scale = x.sum().item()  # graph-break: GB0124 GM301
        except RuntimeError:
            scale = 1.0
        parts = [x * i for i in order]  # graph-break: GB4347 GM611
        return parts[0] * scale


def inputs():
    return (torch.ones(3),)
