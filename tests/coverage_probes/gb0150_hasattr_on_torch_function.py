"""GB0150 Unsupported hasattr call: `hasattr(func, ...)` in a tensor subclass's `__torch_function__`
(GM644). Reading `.shape` of an instance (in its own method here) calls the override with `func` a method-wrapper, which
Dynamo has no hasattr for; `getattr(func, "__name__", None)` and `func.__name__` trace."""

import torch

HANDLED = {"add", "mul"}


class Tagged(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        out = super().__torch_function__(func, types, args, kwargs or {})
        if hasattr(func, "__name__") and func.__name__ in HANDLED:  # graph-break: GB0150 GM644
            return out
        return out

    def scaled(self) -> torch.Tensor:
        return self * self.shape[0]


class Probe(torch.nn.Module):
    def forward(self, x: Tagged) -> torch.Tensor:
        # through the class: `x.scaled()` would add GB0092 here (the bound method is not rebuilt)
        return Tagged.scaled(x) + 1


def inputs():
    return (torch.ones(3).as_subclass(Tagged),)
