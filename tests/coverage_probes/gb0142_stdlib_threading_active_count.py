"""GB0142 Unsupported context manager: a standard-library function that enters a lock
(`threading.active_count()`) (GM640, each entry measured by benchmarks/skipped_callees.py or
benchmarks/skipped_methods.py with the id it is refused with, whatever the arguments)."""

import threading

import torch


class Probe(torch.nn.Module):
    def forward(self, x):
        x = x * 2
        value = threading.active_count()  # graph-break: GB0142 GM640
        return x + (value is not None)


def inputs():
    return (torch.ones(3),)
