"""GB0123 Unsupported Tensor.backward() call (GM701)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.enable_grad():
            leaf = x.detach().requires_grad_()  # graph-break: GB8985 GM701
            y = (leaf * leaf).sum()
            y.backward()  # graph-break: GB0123 GM701
        return x * 2


def inputs():
    return (torch.ones(3),)
