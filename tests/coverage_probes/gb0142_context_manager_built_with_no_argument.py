"""GB0142 Unsupported context manager: `threading.Condition()`, built with no argument in the traced
frame; Dynamo cannot trace its construction (GB0156 under fullgraph) and breaks at the `with`
(GM612, from the table benchmarks/context_managers.py generates)."""

import threading

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        with threading.Condition():  # graph-break: GB0142 GM612
            x = x + 1
        return x + 1


def inputs():
    return (torch.ones(3),)
