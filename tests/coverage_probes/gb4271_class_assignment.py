"""GB4271 __class__ assignment on user-defined object (GM614)."""

import torch


class State:
    def __init__(self, value: torch.Tensor) -> None:
        self.value = value


class FinishedState(State):
    pass


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        state = State(x * 2)
        state.__class__ = FinishedState  # graph-break: GB4271 GM614
        return state.value + 1


def inputs():
    return (torch.ones(3),)
