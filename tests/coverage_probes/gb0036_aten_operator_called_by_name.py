"""GB0036 Dynamic shape operator: an aten operator called by its own name,
`torch.ops.aten.nonzero.default` (GM501, from the generated table's aten spellings)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        idx = torch.ops.aten.nonzero.default(x > 1)  # graph-break: GB0036 GM501
        return idx + 1


def inputs():
    return (torch.ones(3),)
