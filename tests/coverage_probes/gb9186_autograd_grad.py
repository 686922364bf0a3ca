"""GB9186 using `torch.autograd.grad` with `torch._dynamo.config.trace_autograd_ops=False` (GM701)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.enable_grad():
            leaf = x.detach().requires_grad_(True)  # graph-break: GB8985 GM701
            out = (leaf * leaf).sum()
            (grad,) = torch.autograd.grad(out, leaf)  # graph-break: GB9186 GM701
        return grad


def inputs():
    return (torch.ones(3),)
