"""GB0067 HOP: Unsafe side effect: a tensor hook registered in traced code mutates a list from outside it (GM645)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        grads = []
        y = x.sin()

        def keep(g):
            grads.append(g)  # graph-break: GB0067 GM645
        y.register_hook(keep)
        return y + 1


def inputs():
    return (torch.ones(3, requires_grad=True),)
