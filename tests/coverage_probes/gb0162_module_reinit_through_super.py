"""GB0162 Unsupported super().__init__() call: `super().__init__()` in a `reset()` method re-runs
nn.Module's `__init__` on a module already built (GM626)."""

import torch


class Counter(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def reset(self) -> None:
        super().__init__()  # graph-break: GB0162 GM626
        self.count = 0


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.counter = Counter()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        self.counter.reset()
        return x + self.counter.count


def inputs():
    return (torch.ones(3),)
