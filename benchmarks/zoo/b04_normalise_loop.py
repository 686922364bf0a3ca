"""Repeated halving until the norm is small: a `while` on a tensor value."""

import torch


def shrink(x: torch.Tensor, limit: float = 1.0) -> torch.Tensor:
    x = x * 1.5
    steps = 0
    while x.norm() > limit:
        x = x / 2
        steps += 1
    for _ in range(3):  # a static loop unrolls
        x = x + 0.01
    return x


compiled_shrink = torch.compile(shrink)


def case():
    return shrink, (torch.randn(32) * 4,)
