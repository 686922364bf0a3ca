"""GB0142: Unsupported context manager: `torch.random.fork_rng()`."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        with torch.random.fork_rng():  # graph-break: GB0142 GM612
            x = x + 1
        return x + 1


def inputs() -> tuple:
    return (torch.randn(4),)
