"""GB0055 Failed to convert args/kwargs to proxy: `torch.autograd.functional.jacobian(f, x)` (GM642)."""

import torch


def transition(state: torch.Tensor) -> torch.Tensor:
    return state.sin() * 2


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        j = torch.autograd.functional.jacobian(transition, x)  # graph-break: GB0055 GM642
        return j - 1


def inputs():
    return (torch.ones(3),)
