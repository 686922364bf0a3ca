"""GB0055 Failed to convert args/kwargs to proxy: a torch function given a `torch.Generator` built in traced code (GM604)."""

import torch


def noise(size):
    generator = torch.Generator("cpu")  # graph-break: GB0363 GM604
    return torch.randn(size, generator=generator)  # graph-break: GB0055 GM604


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        return x + noise((3,))


def inputs():
    return (torch.ones(3),)
