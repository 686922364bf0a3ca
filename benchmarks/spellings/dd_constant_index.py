"""A 0-d tensor made from a constant, as an index; a 1-d one gathers (near miss)."""

import torch
from torch import nn

ONE = torch.tensor(1)


class Probe(nn.Module):
    def forward(self, x):
        x = x * 2
        idx = torch.tensor(2)
        a = x[idx]
        b = x[ONE]
        rows = torch.tensor([0, 2])
        c = x[rows]
        d = x[torch.tensor(0, dtype=torch.long)]
        e = x[torch.as_tensor(1)]
        return a + b + c.sum() + d + e


def inputs():
    return (torch.randn(4),)
