"""GB8977 Invalid call to __build_class__: a `class` statement in traced code (GM616)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2

        class Scaled:  # graph-break: GB8977 GM616
            scale = 3.0

        return x * Scaled.scale


def inputs():
    return (torch.ones(3),)
