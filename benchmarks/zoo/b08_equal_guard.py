"""`if not torch.equal(a, b): raise` comparing a computed tensor with a reference."""

import torch


@torch.compile
def tied_projection(weight: torch.Tensor, tied: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    y = x @ weight
    if not torch.equal(weight, tied):
        raise ValueError("weights are not tied")
    return y @ tied.t()


def case():
    w = torch.randn(4, 4)
    return tied_projection, (w, w.clone(), torch.randn(2, 4))
