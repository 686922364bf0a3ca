"""GB0072 Inplace op on input tensor: an in-place view method called through the class,
`torch.Tensor.unsqueeze_(t, 0)`, on a graph input (a buffer read from `self`) breaks at the call;
on an intermediate (`y`) it traces."""

import torch


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("scale", torch.ones(3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        torch.Tensor.unsqueeze_(y, 0)
        torch.Tensor.unsqueeze_(self.scale, 0)  # graph-break: GB0072 GM673
        return x + y * self.scale


def inputs():
    return (torch.ones(2, 3),)
