"""GB0036 Dynamic shape operator: `repeat_interleave` with tensor repeats (GM503)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
        x = x * 2
        out = x.repeat_interleave(counts, dim=0)  # graph-break: GB0036 GM503
        return out + 1


def inputs():
    return (torch.ones(3), torch.tensor([1, 2, 1]))
