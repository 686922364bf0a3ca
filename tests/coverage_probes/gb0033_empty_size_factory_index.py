"""GB0033 Data dependent operator: a factory of size `()` (`torch.rand(())`, `torch.zeros(())`) is 0-d,
and indexing with what is made of it reads it back as an int (GM302)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        i = (torch.rand(()) * x.shape[0]).long()
        return y[i]  # graph-break: GB0033 GM302


def inputs():
    return (torch.randn(4),)
