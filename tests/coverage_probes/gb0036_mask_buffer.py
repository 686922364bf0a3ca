"""GB0036 Dynamic shape operator: indexing with a bool buffer registered in `__init__` (GM502, analysis/masks.py)."""

import torch


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("keep", torch.tensor([True, False, True]))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        kept = x[self.keep]  # graph-break: GB0036 GM502
        return kept + 1


def inputs():
    return (torch.ones(3),)
