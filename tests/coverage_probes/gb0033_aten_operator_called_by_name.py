"""GB0033 Data dependent operator: an aten operator called by its own name,
`torch.ops.aten.equal.default` (GM105, from the generated table's aten spellings)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        same = torch.ops.aten.equal.default(x, x.flip(0))  # graph-break: GB0033 GM105
        return x + int(same)


def inputs():
    return (torch.ones(3),)
