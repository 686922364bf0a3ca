"""GB0092 Reconstruction failure: a breaking method called on an object built in the frame (GM605)."""

import torch


class Solver:
    def __init__(self, y0: torch.Tensor) -> None:
        self.y0 = y0

    def integrate(self, t: torch.Tensor) -> torch.Tensor:
        y = self.y0 * t
        if y.sum() > 0:  # graph-break: GB0170 GM101
            y = y - 1
        return y


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        x = x * 2
        return Solver(x).integrate(t)  # graph-break: GB0092 GM605


def inputs():
    return (torch.ones(3), torch.tensor(0.5))
