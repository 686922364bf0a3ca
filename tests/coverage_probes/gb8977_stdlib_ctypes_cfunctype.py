"""GB8977 Invalid call to __build_class__: a standard-library function that defines a class
(`ctypes.CFUNCTYPE(None)`) (GM640, each entry measured by benchmarks/skipped_callees.py or
benchmarks/skipped_methods.py with the id it is refused with, whatever the arguments)."""

import ctypes

import torch


class Probe(torch.nn.Module):
    def forward(self, x):
        x = x * 2
        value = ctypes.CFUNCTYPE(None)  # graph-break: GB8977 GM640
        return x + (value is not None)


def inputs():
    return (torch.ones(3),)
