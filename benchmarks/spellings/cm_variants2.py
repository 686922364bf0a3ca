"""More context managers: torch.nn.attention, parametrize caching, DisableTorchFunction, ExitStack."""

import contextlib

import torch
from torch import nn
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.utils import parametrize


class Probe(nn.Module):
    def forward(self, x):
        x = x * 2
        with sdpa_kernel(SDPBackend.MATH):
            x = x + 1
        with parametrize.cached():
            x = x + 2
        with torch._C.DisableTorchFunction():
            x = x + 3
        with contextlib.ExitStack() as stack:
            stack.enter_context(torch.no_grad())
            x = x + 4
        with torch.enable_grad():
            x = x + 5
        with torch.set_grad_enabled(False):
            x = x + 6
        return x


def inputs():
    return (torch.randn(4),)
