"""GB0055 Failed to convert args/kwargs to proxy: a standard-library function Dynamo cannot trace
through (`statistics.geometric_mean(data)`) (GM640, each entry measured by
benchmarks/skipped_callees.py or benchmarks/skipped_methods.py with the id it is refused with,
whatever the arguments)."""

import statistics

import torch


class Probe(torch.nn.Module):
    def forward(self, x):
        x = x * 2
        value = statistics.geometric_mean([1.0, 2.0])  # graph-break: GB0055 GM640
        return x + (value is not None)


def inputs():
    return (torch.ones(3),)
