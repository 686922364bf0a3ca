"""GB0033 Data dependent operator: `"%.2f" % t`, a tensor formatted alone as a number (GM622):
Dynamo reads its value back."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        label = "%.2f" % y.sum()  # graph-break: GB0033 GM622
        return y + len(label)


def inputs():
    return (torch.ones(3),)
