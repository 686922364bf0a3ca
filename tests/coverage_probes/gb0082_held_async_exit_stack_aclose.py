"""GB0082 Missing bytecode handler: a coroutine method of a standard-library object held from
`__init__` (`contextlib.AsyncExitStack().aclose()`) (GM640: benchmarks/skipped_methods.py measures
each method on an object built outside the compiled frame and records the id Dynamo refuses it with,
whatever the arguments)."""

import contextlib

import torch


class Probe(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.stack = contextlib.AsyncExitStack()

    def forward(self, x):
        x = x * 2
        value = self.stack.aclose()  # graph-break: GB0082 GM640
        return x + (value is not None)


def inputs():
    return (torch.ones(3),)
