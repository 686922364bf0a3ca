"""GB0008 Attempted to inline function marked as skipped: a method of an object a class of a
package on Dynamo's third-party skip list built (tqdm's `update`), reported by GM650."""

import torch
from tqdm import tqdm


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        bar = tqdm(total=2, disable=True)  # graph-break: GB0007 GM650
        x = x + 1
        bar.update(1)  # graph-break: GB0008 GM650
        return x + 1


def inputs():
    return (torch.ones(3),)
