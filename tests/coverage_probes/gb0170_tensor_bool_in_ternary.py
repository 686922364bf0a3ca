"""GB0170 Data-dependent branching: a conditional expression on a tensor's value (GM102)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        y = torch.relu(x) if x.mean() > 0 else torch.tanh(x)  # graph-break: GB0170 GM102
        return y - 1


def inputs():
    return (torch.ones(3),)
