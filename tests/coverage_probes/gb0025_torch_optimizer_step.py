"""GB0025 Call to `torch._dynamo.graph_break()`: inside a torch optimizer's `step()` (GM655)."""

import torch


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(3))
        self.w.grad = torch.ones(3)
        self.opt = torch.optim.SGD([self.w], lr=0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        self.opt.step()  # graph-break: GB0025 GM655
        return x - 1


def inputs():
    return (torch.ones(3),)
