"""GB4347 Missing tp_iternext: a comprehension over a dict in a frame Dynamo skipped (GM611)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + 1
        flags = {"a": 1, "b": 2}
        try:
            scale = x.sum().item()  # graph-break: GB0124 GM301
        except RuntimeError:
            scale = 1.0
        parts = {k: x * v for k, v in flags.items()}  # graph-break: GB4347 GM611
        return parts["a"] * scale


def inputs():
    return (torch.ones(3),)
