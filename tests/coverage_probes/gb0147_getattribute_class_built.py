"""GB0147 Unsupported function call: building, in traced code, an object of a class that defines
`__getattribute__`: Dynamo builds only objects whose attribute lookup is Python's own (GM628)."""

import torch


class Record:
    def __init__(self):
        self.scale = 2.0

    def __getattribute__(self, name):
        return super().__getattribute__(name)


class Probe(torch.nn.Module):
    def forward(self, x):
        x = x * 2
        record = Record()  # graph-break: GB0147 GM628
        return x * record.scale


def inputs():
    return (torch.ones(3),)
