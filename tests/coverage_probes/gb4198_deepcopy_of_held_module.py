"""GB4198 Attempted to copy.deepcopy a tensor: `copy.deepcopy` of an nn.Module built in `__init__`
(GM693), whose parameters Dynamo refuses to copy."""

import copy

import torch


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.head = torch.nn.Linear(3, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        head = copy.deepcopy(self.head)  # graph-break: GB4198 GM693
        return head(x)


def inputs():
    return (torch.ones(3),)
