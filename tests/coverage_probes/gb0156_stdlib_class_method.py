"""GB0156 Unsupported method call: a C method of a standard-library class Dynamo has no handler for,
called on the class (`datetime.datetime.now()`) (GM640, each entry measured by
benchmarks/skipped_callees.py or benchmarks/skipped_methods.py with the id it is refused with,
whatever the arguments)."""

import datetime

import torch


class Probe(torch.nn.Module):
    def forward(self, x):
        x = x * 2
        value = datetime.datetime.now()  # graph-break: GB0156 GM640
        return x + (value is not None)


def inputs():
    return (torch.ones(3),)
