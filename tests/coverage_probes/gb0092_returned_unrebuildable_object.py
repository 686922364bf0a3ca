"""GB0092 Reconstruction failure: a frame Dynamo compiles on its own returns an object whose
`__init__` stored a function given as a parameter's default; Dynamo cannot rebuild it as the return
value (GM629). The frame is one of its own because its caller runs eagerly after a call Dynamo could
not resume at (GM605)."""

import torch


def read_default(path):
    return path


class Image:
    def __init__(self, tensor, reader=read_default):
        self.tensor = tensor
        self.reader = reader


class Parser:
    def __init__(self, data):
        self.data = data

    def parse(self):
        scaled = torch.relu(self.data)
        print("parsing")  # graph-break: GB0059 GM401
        return self.wrap(scaled)  # graph-break: GB0092 GM629

    def wrap(self, t):
        return Image(t * 2)  # graph-break: GB0092 GM629


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        parser = Parser(x)
        image = parser.parse()  # graph-break: GB0092 GM605
        return image.tensor + 1


def inputs():
    return (torch.ones(3),)
