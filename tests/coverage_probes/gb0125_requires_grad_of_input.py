"""GB0125 Unsupported Tensor.requires_grad_() call: on a graph input that does not require grad.

On a parameter of a function Dynamo inlines the same call breaks with GB8985 (an intermediate), and
which one a parameter is, is a run-time fact; GM701 reports the line as GB8985. GM701 reports GB0125
where the receiver is an nn.Parameter by construction (gb0125_freeze_parameter.py).
"""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        y = y + 1
        x.requires_grad_()  # graph-break: GB0125 -
        return y + x


def inputs():
    return (torch.ones(3),)
