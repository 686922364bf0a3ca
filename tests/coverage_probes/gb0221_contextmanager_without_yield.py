"""GB0221 non-generator contextlib.contextmanager: calling a `@contextlib.contextmanager` function
that yields nothing (it returns another generator) in traced code; entering the manager it built
then breaks too, one built outside the graph (GM612)."""

import contextlib

import torch


def _scale():
    yield 2


@contextlib.contextmanager
def scaled():
    return _scale()


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + 1
        manager = scaled()  # graph-break: GB0221 GM612
        x = x.cos()
        with manager as factor:  # graph-break: GB0142 -
            x = x * factor
        return x.sin()


def inputs():
    return (torch.ones(3),)
