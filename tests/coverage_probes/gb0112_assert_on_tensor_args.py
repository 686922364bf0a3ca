"""GB0112 TypeError when making fake tensor call: `assert parts` on a `*parts` of tensors (GM203)."""

import torch


def stack(x, *parts: torch.Tensor):
    y = x + 1
    assert parts, "no parts"  # graph-break: GB0112 GM203
    return y * len(parts)


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return stack(x, x, x)


def inputs():
    return (torch.ones(3),)
