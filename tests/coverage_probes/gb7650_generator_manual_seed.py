"""GB7650 torch.Generator method: `torch.Generator().manual_seed(s)` chained on the construction
(only the method breaks), and `g.manual_seed(s)` on one built earlier (GM604)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        seeded = torch.Generator().manual_seed(3)  # graph-break: GB7650 GM604
        x = x + 1
        generator = torch.Generator()  # graph-break: GB0363 GM604
        generator.manual_seed(4)  # graph-break: GB7650 GM604
        return x - float(seeded is None)


def inputs():
    return (torch.ones(3),)
