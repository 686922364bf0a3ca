"""GB0008 Attempted to inline function marked as skipped: a method of a standard-library object built
outside the compiled frame whose file Dynamo skips (`self.rng = random.SystemRandom()` in `__init__`,
`random.py` is on trace_rules' skip list), refused at the caller's line (GM640,
benchmarks/skipped_methods.py)."""

import random

import torch


class Probe(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rng = random.SystemRandom()

    def forward(self, x):
        x = x * 2
        scale = self.rng.uniform(0.5, 1.5)  # graph-break: GB0008 GM640
        return x * scale


def inputs():
    return (torch.ones(3),)
