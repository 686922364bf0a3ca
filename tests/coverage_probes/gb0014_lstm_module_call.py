"""GB0014 Attempted to wrap RNN, GRU, or LSTM: an `nn.LSTM` held by the module and called in its
forward (GM613); Dynamo runs the whole frame eagerly (transformers' Encodec LSTM block)."""

import torch
from torch import nn


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lstm = nn.LSTM(4, 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        return self.lstm(x)[0] + x  # graph-break: GB0014 GM613


def inputs():
    return (torch.randn(5, 2, 4),)
