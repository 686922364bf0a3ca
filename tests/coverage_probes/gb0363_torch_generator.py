"""GB0363 An opaque object was created in the middle of the program: `torch.Generator()` (GM604)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        generator = torch.Generator()  # graph-break: GB0363 GM604
        return x + (generator is not None)


def inputs():
    return (torch.ones(3),)
