"""GB0033 Data dependent operator: reducing a 1-d tensor over its only dim (`v.argmax(0)`,
`v.max(0).indices`) gives a 0-d tensor, read back as an int when it indexes (GM302)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        best = x.flatten().max(0).indices
        return y.flatten()[best]  # graph-break: GB0033 GM302


def inputs():
    return (torch.randn(2, 3),)
