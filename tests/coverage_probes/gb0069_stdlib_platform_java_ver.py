"""GB0069 Import failure: a standard-library function that imports a module this platform lacks
(`platform.java_ver()`) (GM640, each entry measured by benchmarks/skipped_callees.py or
benchmarks/skipped_methods.py with the id it is refused with, whatever the arguments)."""

import platform

import torch


class Probe(torch.nn.Module):
    def forward(self, x):
        x = x * 2
        value = platform.java_ver()  # graph-break: GB0069 GM640
        return x + (value is not None)


def inputs():
    return (torch.ones(3),)
