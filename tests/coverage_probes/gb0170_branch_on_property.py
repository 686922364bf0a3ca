"""GB0170 Data-dependent branching: `if` on a property whose getter returns a tensor comparison;
Dynamo inlines the getter at the read (GM101)."""

import torch


class Probe(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.log_scale = torch.nn.Parameter(torch.zeros(3))

    @property
    def positive(self):
        return self.log_scale.sum() >= 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        if self.positive:  # graph-break: GB0170 GM101
            x = x + 1
        return x - 1


def inputs():
    return (torch.ones(3),)
