"""GB0099 Skip inlining `torch.compiler.disable()`d function: a method marked
`@torch.compiler.disable` called through `self`, and a function disabled with `recursive=False`
(GM620)."""

import torch


@torch.compiler.disable(recursive=False)
def shifted(x):
    return x + 1


class Probe(torch.nn.Module):
    @torch.compiler.disable
    def rows_with_values(self, x):
        return x[x.sum(-1) > 0]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        rows = self.rows_with_values(x)  # graph-break: GB0099 GM620
        x = shifted(x)  # graph-break: GB0099 GM620
        return x.sum() + rows.sum()


def inputs():
    return (torch.ones(3, 2),)
