"""GB8985 requires_grad_() intermediate leaked as output: `t.requires_grad_()` (GM701)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        loss = torch.zeros((), device=x.device)
        loss.requires_grad_()  # graph-break: GB8985 GM701
        return x + loss


def inputs():
    return (torch.ones(3),)
