"""GB0033: Data dependent operator: a tensor passed as `alpha=`, a Python number in the schema."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        scale = x.abs().amax()
        return torch.add(x, x, alpha=scale)  # graph-break: GB0033 GM305


def inputs() -> tuple:
    return (torch.randn(4),)
