"""GB0142 Unsupported context manager: `with ctx:` in a helper that breaks, handed a manager its
caller built in traced code (GM612). Dynamo inlines the helper, meets the `print`, breaks at the call
instead and compiles the helper as a frame of its own, where `ctx` is an input it cannot enter."""

import torch


class Section:
    def __enter__(self) -> "Section":
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def helper(ctx: Section, x: torch.Tensor) -> torch.Tensor:
    with ctx:  # graph-break: GB0142 GM612
        print("step")  # graph-break: GB0059 GM401
        return x * 2


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        return helper(Section(), x) + 1


def inputs():
    return (torch.ones(3),)
