"""GB0262 unsupported contextlib.* API: a standard-library function that enters a `contextlib` manager
Dynamo rejects (`glob.glob1`) (GM640, each entry measured by benchmarks/skipped_callees.py or
benchmarks/skipped_methods.py with the id it is refused with, whatever the arguments)."""

import glob

import torch


class Probe(torch.nn.Module):
    def forward(self, x):
        x = x * 2
        value = glob.glob1(".", "*.missing")  # graph-break: GB0262 GM640
        return x + (value is not None)


def inputs():
    return (torch.ones(3),)
