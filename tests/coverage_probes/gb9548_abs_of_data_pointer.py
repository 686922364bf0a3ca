"""GB9548: `abs()` of a tensor's `data_ptr()`, which Dynamo holds as a stand-in that is no int (GM656)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = x * 2
        value = abs(x.data_ptr())  # graph-break: GB9548 GM656
        return out + len(str(value))


def inputs():
    return (torch.ones(2, 3),)
