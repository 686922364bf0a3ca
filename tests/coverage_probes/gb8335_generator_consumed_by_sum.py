"""GB8335 Generator reconstruction with mutations: `sum` consuming a generator expression a call of whose
elements breaks (GM666)."""

import torch


def noisy(t: torch.Tensor) -> torch.Tensor:
    print("scaling")  # graph-break: GB0059 GM401
    return t * 2


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        parts = [x * 2, x + 1]
        return sum(noisy(v) for v in parts)  # graph-break: GB8335 GM666


def inputs():
    return (torch.ones(3),)
