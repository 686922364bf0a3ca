"""GB0007 Attempted to call function marked as skipped: a `threading.Event()` built in traced code,
whose `__init__` builds a lock through a function Dynamo skips (GM640, `REFUSED_BUILDS` of
benchmarks/skipped_methods.py); setting it breaks again in the resumed frame (GB0142)."""

import threading

import torch


class Probe(torch.nn.Module):
    def forward(self, x):
        x = x * 2
        done = threading.Event()  # graph-break: GB0007 GM640
        done.set()  # graph-break: GB0142 GM640
        return x + 1


def inputs():
    return (torch.ones(3),)
