"""GB0147 Unsupported function call: `types.SimpleNamespace(...)` built in traced code (GM604)."""

import types

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        state = types.SimpleNamespace(step=1)  # graph-break: GB0147 GM604
        return x + state.step


def inputs():
    return (torch.ones(3),)
