"""GB0104 Tensor with grad_fn(): reading `.grad_fn` of a tensor computed with grad enabled from a
parameter breaks at the read; `requires_grad` traces, and so does `.grad_fn` of the leaf input."""

import torch


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(3, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = self.proj(x)
        if x.grad_fn is None and hidden.requires_grad:
            hidden = hidden * 2
        if hidden.grad_fn is not None:  # graph-break: GB0104 GM671
            hidden = hidden + 1
        return hidden


def inputs():
    return (torch.ones(2, 3),)
