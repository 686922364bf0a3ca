"""GB0008 Attempted to inline function marked as skipped: a torch optimizer's `zero_grad()`,
`@torch._disable_dynamo` (GM655)."""

import torch


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(3))
        self.opt = torch.optim.Adam([self.w], lr=0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        self.opt.zero_grad()  # graph-break: GB0008 GM655
        return x - 1


def inputs():
    return (torch.ones(3),)
