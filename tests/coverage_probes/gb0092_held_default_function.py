"""GB0092 Reconstruction failure: a call that breaks after the frame built an object whose `__init__`
stored a function it got as a parameter's default, which Dynamo holds with no source (GM605)."""

import torch


def read(t: torch.Tensor) -> torch.Tensor:
    return t * 2


class Image:
    def __init__(self, t: torch.Tensor, reader=read) -> None:
        self.reader = reader
        self.t = t


def announce(t: torch.Tensor) -> torch.Tensor:
    print("announcing")  # graph-break: GB0059 GM401
    return t + 1


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        image = Image(x * 2)
        y = announce(x)  # graph-break: GB0092 GM605
        return image.reader(y)


def inputs():
    return (torch.ones(3),)
