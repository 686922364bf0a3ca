"""GB0092 Reconstruction failure: a breaking method called on a tensor subclass's instance (GM662).
Dynamo cannot rebuild the method bound to the instance to run the call eagerly; through the class
(`Lie.tensor(x)`) the call is a function with a source and only the break inside remains."""

import torch


class Lie(torch.Tensor):
    def tensor(self) -> torch.Tensor:
        return torch.Tensor.as_subclass(self, torch.Tensor)  # graph-break: GB0001 GM641


class Probe(torch.nn.Module):
    def forward(self, x: Lie) -> torch.Tensor:
        return x.tensor() + 1  # graph-break: GB0092 GM662


def inputs():
    return (torch.ones(3).as_subclass(Lie),)
