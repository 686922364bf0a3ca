"""GB0292 constant-like method call with unsupported return type: a method of a standard-library object
held from `__init__` (`string.Template(s).is_valid()`) (GM640: benchmarks/skipped_methods.py
measures each method on an object built outside the compiled frame and records the id Dynamo refuses
it with, whatever the arguments)."""

import string

import torch


class Probe(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.template = string.Template("$name")

    def forward(self, x):
        x = x * 2
        value = self.template.is_valid()  # graph-break: GB0292 GM640
        return x + (value is not None)


def inputs():
    return (torch.ones(3),)
