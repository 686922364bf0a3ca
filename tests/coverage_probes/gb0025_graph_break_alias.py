"""GB0025 Call to `torch._dynamo.graph_break()` through a module-level alias (`_sync = torch._dynamo.graph_break`,
bound once): the name holds the same function, so Dynamo breaks at the alias's call (GM603,
analysis/module_aliases.py)."""

import torch

_sync = torch._dynamo.graph_break


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        _sync()  # graph-break: GB0025 GM603
        return x - 1


def inputs():
    return (torch.ones(3),)
