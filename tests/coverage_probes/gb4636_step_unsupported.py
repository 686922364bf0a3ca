"""GB4636 Call to `torch._dynamo.step_unsupported()`: after two traced ops of the frame (GM603)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        y = x.sin() + 1
        torch._dynamo.step_unsupported()  # graph-break: GB4636 GM603
        return y - 1


def inputs():
    return (torch.ones(3),)
