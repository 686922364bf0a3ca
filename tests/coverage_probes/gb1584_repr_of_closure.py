"""GB1584 repr() on nested function with non-constructible closure: `repr()` of a nested function that reads a tensor (GM622)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2

        def scale(z: torch.Tensor) -> torch.Tensor:
            return z * y

        shown = repr(scale)  # graph-break: GB1584 GM622
        return scale(x) + len(shown)


def inputs():
    return (torch.ones(3),)
