"""requires_grad_ as libraries spell it: on a helper's input, through torch.enable_grad, as a function."""

import torch
from torch import nn


def with_grad(x):
    return x.detach().requires_grad_(True)


class Probe(nn.Module):
    def energy(self, x):
        return (x**2).sum()

    def forward(self, x):
        x = x * 2
        with torch.enable_grad():
            y = x.detach().requires_grad_()
            e = self.energy(y)
        z = with_grad(x)
        w = torch.Tensor.requires_grad_(x.clone())
        return y * 2 + e + z + w


def inputs():
    return (torch.randn(4),)
