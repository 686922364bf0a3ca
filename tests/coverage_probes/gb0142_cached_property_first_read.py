"""GB0142 Unsupported context manager: the first read of a `functools.cached_property` in forward
(GM612); before Python 3.12 its `__get__` computes the value under `with self.lock:`, an RLock."""

import functools

import torch


class Probe(torch.nn.Module):
    @functools.cached_property
    def scale(self) -> float:
        return 2.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        scale = self.scale  # graph-break: GB0142 GM612
        return x * scale


def inputs():
    return (torch.ones(3),)
