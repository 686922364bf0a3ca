"""GB0036 Dynamic shape operator: Dynamo traces NumPy through torch._numpy, so `np.unique` of an array
made from a tensor runs `aten._unique2`, whose output shape depends on the values (GM501)."""

import numpy as np
import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = (x * 2).numpy()
        return torch.as_tensor(np.unique(a))  # graph-break: GB0036 GM501


def inputs():
    return (torch.tensor([1.0, 2.0, 1.0, 3.0]),)
