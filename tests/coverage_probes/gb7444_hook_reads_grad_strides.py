"""GB7444 register_hook with stride-dependent code: a hook reading the gradient's layout (GM633)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        x = x + 1
        y = x.sin()
        y.register_hook(lambda g: g * 2 if g.is_contiguous() else g)  # graph-break: GB7444 GM633
        return y + 1


def inputs():
    return (torch.ones(3, requires_grad=True),)
