"""GB0098 Skip calling `torch.compiler.disable()`d function: a call from traced code to a function
marked `@torch.compiler.disable` (GM620); nothing inside it breaks."""

import torch


@torch.compiler.disable
def rows_with_values(x):
    return x[x.sum(-1) > 0]


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        rows = rows_with_values(x)  # graph-break: GB0098 GM620
        return x.sum() + rows.sum()


def inputs():
    return (torch.ones(3, 2),)
