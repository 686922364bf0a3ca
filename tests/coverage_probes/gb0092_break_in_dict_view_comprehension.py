"""GB0092 Reconstruction failure: a call that breaks inside a comprehension over `d.items()`
(Python 3.11: the comprehension's frame holds a dict iterator Dynamo cannot rebuild) (GM624)."""

import torch


def noisy(t: torch.Tensor) -> torch.Tensor:
    print("scaling")  # graph-break: GB0059 GM401
    return t * 2


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        parts = {"a": x * 2, "b": x + 1}
        scaled = {k: noisy(v) for k, v in parts.items()}  # graph-break: GB0092 GM624
        return scaled["a"]


def inputs():
    return (torch.ones(3),)
