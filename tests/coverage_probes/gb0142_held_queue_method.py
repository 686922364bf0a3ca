"""GB0142 Unsupported context manager: `Queue.put` on a queue held from outside the compiled frame
(built in `__init__`) enters the queue's own lock inside, which Dynamo cannot enter (GM640,
benchmarks/skipped_methods.py's synchronization objects, each measured)."""

import queue

import torch


class Probe(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.results = queue.Queue()

    def forward(self, x):
        x = x * 2
        self.results.put(1)  # graph-break: GB0142 GM640
        return x + 1


def inputs():
    return (torch.ones(3),)
