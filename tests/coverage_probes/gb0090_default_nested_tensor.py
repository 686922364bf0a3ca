"""GB0090 Operator does not support running with fake tensors: `torch.nested.nested_tensor(ts)` with the
default (strided) layout in traced code breaks at the call, as does `as_nested_tensor` without
`layout=torch.jagged`. The result is dropped: a strided nested tensor alive after the call is an
input of the graph that resumes, which breaks again there (GB0016)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        torch.nested.nested_tensor([y, y])  # graph-break: GB0090 GM670
        return y + 1


def inputs():
    return (torch.ones(2, 3),)
