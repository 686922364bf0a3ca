"""GB0100 Storing Tensor hook handle in globals: `HANDLE = t.register_hook(fn)` after `global HANDLE`
in traced code breaks at the store; registering the hook and keeping the handle in a local traces."""

import torch

HANDLE = None


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        global HANDLE
        y = torch.sin(x)
        kept = y.register_hook(lambda grad: grad * 2)
        HANDLE = y.register_hook(lambda grad: grad * 3)  # graph-break: GB0100 GM675
        return y * 2 + float(kept is None)


def inputs():
    return (torch.ones(2, 3, requires_grad=True),)
