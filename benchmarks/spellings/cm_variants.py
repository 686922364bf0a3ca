"""Context managers as libraries spell them."""

import contextlib
import warnings

import torch
from torch import nn


class Probe(nn.Module):
    def forward(self, x):
        x = x * 2
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = x + 1
        with torch.autograd.profiler.record_function("block"):
            x = x + 2
        with torch._C.DisableTorchFunctionSubclass():
            x = x + 3
        ctx = torch.no_grad() if self.training else contextlib.nullcontext()
        with ctx:
            x = x + 4
        with torch.inference_mode():
            x = x + 5
        with torch.autocast("cpu", enabled=False):
            x = x + 6
        with torch.profiler.record_function("other"):
            x = x + 7
        return x


def inputs():
    return (torch.randn(4),)
