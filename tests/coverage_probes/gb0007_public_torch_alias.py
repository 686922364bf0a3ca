"""GB0007 Attempted to call function marked as skipped: a function of torch's private modules on
Dynamo's skip list called by its public name (`torch.utils.data.default_collate` is
`torch.utils.data._utils.collate.default_collate`; Dynamo looks the object up), GM640 through
vocabulary/torch_aliases.py."""

import torch
from torch.utils.data import default_collate


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        batch = default_collate([x, x])  # graph-break: GB0007 GM640
        return batch + 1


def inputs():
    return (torch.ones(3),)
