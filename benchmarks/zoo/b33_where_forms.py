"""torch.where: the one-argument form has a data-dependent shape, the three-argument form is dense."""

import torch


def sparse_positions(x: torch.Tensor) -> torch.Tensor:
    x = x * 2
    dense = torch.where(x > 0, x, torch.zeros_like(x))
    (positions,) = torch.where(x > 1)
    return dense.sum() + positions.sum()


compiled_positions = torch.compile(sparse_positions)


def case():
    return sparse_positions, (torch.randn(10),)
