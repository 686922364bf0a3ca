"""GB0233 Attempted to use strided NestedTensor: `torch.nested.nested_tensor(ts, layout=torch.strided)`
in traced code breaks at the call; `layout=torch.jagged` traces.
The result is dropped: a strided nested tensor alive after the call is an input of the graph that
resumes, which breaks again there (GB0016)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        jagged = torch.nested.nested_tensor([y, y], layout=torch.jagged)
        torch.nested.nested_tensor([y, y], layout=torch.strided)  # graph-break: GB0233 GM670
        return y + jagged.values().sum()


def inputs():
    return (torch.ones(2, 3),)
