"""GB0125 Unsupported Tensor.requires_grad_() call: on a graph input that does not require grad.

GM701 reports `requires_grad_()` on an argument with this id, used again or not: when the function is
compiled the argument is a graph input (tests/test_requires_grad_inputs.py). Where a caller Dynamo
inlines passes a tensor it built, the same call is GB8985's (an intermediate), a run-time fact.
"""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        y = y + 1
        x.requires_grad_()  # graph-break: GB0125 GM701
        return y + x


def inputs():
    return (torch.ones(3),)
