"""GB0124: Tensor.item(): a ModuleList indexed by a 0-d tensor."""

import torch


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.experts = torch.nn.ModuleList([torch.nn.Linear(4, 4) for _ in range(2)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        choice = x[:2].argmax()
        return self.experts[choice](x)  # graph-break: GB0124 GM302


def inputs() -> tuple:
    return (torch.randn(4),)
