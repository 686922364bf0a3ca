"""GB8335 Generator reconstruction with mutations: a generator expression passed to a callee that breaks (GM609)."""

import torch


def consume_then_log(items):
    items = list(items)
    print("consumed")  # graph-break: GB0059 GM401
    return items[0]


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        c = x + 1
        return consume_then_log(c * s for s in (1.0, 2.0))  # graph-break: GB8335 GM609


def inputs():
    return (torch.ones(3),)
