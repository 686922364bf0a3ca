"""GB0007 Attempted to call function marked as skipped: a call into a third-party package on
Dynamo's skip list (trace_rules.THIRDPARTY_SKIPLIST: tqdm), reported by GM650."""

import torch
from tqdm import tqdm


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        steps = tqdm(range(2), disable=True)  # graph-break: GB0007 GM650
        return x + (steps is not None)


def inputs():
    return (torch.ones(3),)
