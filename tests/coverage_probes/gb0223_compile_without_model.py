"""GB0223 torch.compile call with > 1 args: `torch.compile(backend=...)` in traced code, the
function not given positionally (GM691); `torch.compile(fn, ...)` is a no-op there and traces."""

import torch


def _double(t: torch.Tensor) -> torch.Tensor:
    return t * 2


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + 1
        decorate = torch.compile(backend="eager")  # graph-break: GB0223 GM691
        x = x.cos()
        same = torch.compile(_double, fullgraph=True)
        return same(x) + (decorate is not None)


def inputs():
    return (torch.ones(3),)
