"""GB0142 Unsupported context manager: `torch.autograd.graph.saved_tensors_hooks(...)` entered in traced code (GM612)."""

import torch


def _keep(t: torch.Tensor) -> torch.Tensor:
    return t


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        with torch.autograd.graph.saved_tensors_hooks(_keep, _keep):  # graph-break: GB0142 GM612
            x = x + 1
        return x + 1


def inputs() -> tuple:
    return (torch.randn(4),)
