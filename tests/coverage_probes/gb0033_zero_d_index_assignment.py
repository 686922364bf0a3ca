"""GB0033 Data dependent operator: a 0-d tensor used as the index of an assignment is read back as
an int (GM302)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x.clone()
        y[x.argmax()] = 0  # graph-break: GB0033 GM302
        return y


def inputs():
    return (torch.arange(1.0, 5.0),)
