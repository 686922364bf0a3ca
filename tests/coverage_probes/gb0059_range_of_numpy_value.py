"""GB0059 Failed to trace builtin operator: `range()` over a NumPy value, which Dynamo traces as an `ndarray` (GM304)."""

import math

import numpy as np
import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        num_inputs = np.prod(x.shape[1:])  # an ndarray under Dynamo, even from Python ints
        outputs = torch.zeros_like(x)
        for _ in range(num_inputs):  # graph-break: GB0059 GM304
            outputs = outputs + x
        for _ in range(math.prod(x.shape[1:])):  # math's product of ints: a Python int, traced
            outputs = outputs - 1
        return outputs


def inputs():
    return (torch.ones(2, 3),)
