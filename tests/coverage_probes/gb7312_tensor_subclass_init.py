"""GB7312 failed to bind arguments when attempting to inline: building a torch.Tensor subclass
whose `__init__` takes the tensor and labels by position: Dynamo runs `__init__` with the call's
keyword arguments only (GM635)."""

import torch


class Labelled(torch.Tensor):
    @staticmethod
    def __new__(cls, x, labels):
        return super().__new__(cls, x)

    def __init__(self, x, labels):
        super().__init__()
        self.labels = labels


class Probe(torch.nn.Module):
    def forward(self, x):
        x = x * 2
        y = Labelled(x, ["a"])  # graph-break: GB7312 GM635
        return y * 3


def inputs():
    return (torch.ones(3),)
