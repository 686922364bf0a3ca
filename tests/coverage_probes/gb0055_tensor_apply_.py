"""GB0055 Failed to convert args/kwargs to proxy: `t.apply_(fn)`, a Python function given to a tensor method (GM648)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        y = x.clone().apply_(lambda v: v + 1)  # graph-break: GB0055 GM648
        return y - 1


def inputs():
    return (torch.ones(3),)
