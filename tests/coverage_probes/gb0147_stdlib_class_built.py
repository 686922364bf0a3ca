"""GB0147 Unsupported function call: building a standard-library C class Dynamo has no handler for
(`array.array(...)`) (GM640, each entry measured by benchmarks/skipped_callees.py or
benchmarks/skipped_methods.py with the id it is refused with, whatever the arguments)."""

import array

import torch


class Probe(torch.nn.Module):
    def forward(self, x):
        x = x * 2
        value = array.array("f", [1.0])  # graph-break: GB0147 GM640
        return x + (value is not None)


def inputs():
    return (torch.ones(3),)
