"""GB0033 Data dependent operator: iterating over a 1-d tensor yields 0-d tensors, and one used as
an index is read back as an int (GM302)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.zeros_like(x)
        for i in torch.arange(x.shape[1]):
            y[:, i] = x[:, i] * 2  # graph-break: GB0033 GM302
        return y


def inputs():
    return (torch.randn(4, 3),)
