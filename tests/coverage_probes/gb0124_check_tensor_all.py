"""GB0124: Tensor.item() inside `torch._check_tensor_all` of a tensor condition."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        torch._check_tensor_all((x > -100).all(), lambda: "too small")  # graph-break: GB0124 GM201
        return x + 1


def inputs() -> tuple:
    return (torch.randn(4),)
