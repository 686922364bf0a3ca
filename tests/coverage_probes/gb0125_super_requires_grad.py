"""GB0125 Unsupported Tensor.requires_grad_() call: a tensor subclass's `requires_grad_` override
calling `super().requires_grad_(mode)` (pina's LabelTensor) on a graph input, here a module-level
instance, whose flag it changes (GM701). The call of the override on the instance is a bound method
Dynamo cannot rebuild (GB0092, GM662 judges only receivers an annotation or isinstance types)."""

import torch


class Labelled(torch.Tensor):
    def requires_grad_(self, mode=True):
        labelled = super().requires_grad_(mode)  # graph-break: GB0125 GM701
        return labelled


POINTS = Labelled(torch.ones(3))


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        POINTS.requires_grad_(True)  # graph-break: GB0092 -
        return x * 2


def inputs():
    return (torch.ones(3),)
