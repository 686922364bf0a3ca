"""GB0156 Unsupported method call: a method of a lock held from outside the compiled frame (built in
`__init__`), a C method Dynamo has no handler for (GM640, benchmarks/skipped_methods.py's
synchronization objects, each measured)."""

import threading

import torch


class Probe(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._lock = threading.Lock()

    def forward(self, x):
        x = x * 2
        busy = self._lock.locked()  # graph-break: GB0156 GM640
        return x + busy


def inputs():
    return (torch.ones(3),)
