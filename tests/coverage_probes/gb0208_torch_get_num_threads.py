"""GB0208 torch.* op returned non-Tensor: `torch.get_num_threads()`, a torch function returning a
Python value Dynamo does not fold (GM604; torchkbnufft sizes its process forks with it)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        threads = torch.get_num_threads()  # graph-break: GB0208 GM604
        return x + threads


def inputs():
    return (torch.ones(3),)
