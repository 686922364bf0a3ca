"""GB0142 Unsupported context manager: `torch.no_grad()` built in `__init__` and entered in forward
(`with self.frozen:`, GM612). Built in the traced frame Dynamo enters it; held from outside, it cannot."""

import torch


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.frozen = torch.no_grad()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        with self.frozen:  # graph-break: GB0142 GM612
            x = x + 1
        return x * 3


def inputs():
    return (torch.ones(3),)
