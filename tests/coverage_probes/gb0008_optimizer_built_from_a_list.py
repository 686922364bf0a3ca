"""GB0008 Attempted to inline function marked as skipped: a torch optimizer built in traced code
(GM695), once the program has built one of its class (as a training script has: the first one of a
class a process builds breaks with GB0467 instead, test_local_optimizers.py)."""

import torch

_TRAINING = torch.optim.Adam([torch.zeros(1, requires_grad=True)], lr=0.1)


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        x = x + 1
        opt = torch.optim.Adam([self.w], lr=0.1)  # graph-break: GB0008 GM695
        return x * 3 if opt else x


def inputs():
    return (torch.ones(3),)
