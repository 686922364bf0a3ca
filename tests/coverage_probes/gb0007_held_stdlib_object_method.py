"""GB0007 Attempted to call function marked as skipped: a method of a standard-library object built
outside the compiled frame (`self.cache = pathlib.Path(...)` in `__init__`), which Dynamo inlines
until the skipped `os.stat` inside it, reported at the caller's line (GM640,
benchmarks/skipped_methods.py)."""

import pathlib

import torch


class Probe(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = pathlib.Path("missing-cache")

    def forward(self, x):
        x = x * 2
        if self.cache.exists():  # graph-break: GB0007 GM640
            x = x + 1
        return x + 1


def inputs():
    return (torch.ones(3),)
