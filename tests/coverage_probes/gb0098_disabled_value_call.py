"""GB0098 Skip calling `torch.compiler.disable()`d function: a call from traced code of a value
`torch.compiler.disable(f)` returned, held in a module-level name or in `self.NAME` (GM620); one
built with `recursive=False` is GB0099."""

import torch

no_compile_eigh = torch.compiler.disable(torch.linalg.eigh)


def _rows_with_values(x):
    return x[x.sum(-1) > 0]


rows_eagerly = torch.compiler.disable(_rows_with_values, recursive=False)


class Probe(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.solve = torch.compiler.disable(torch.linalg.solve)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        m = x @ x.T + torch.eye(3)
        _, vectors = no_compile_eigh(m)  # graph-break: GB0098 GM620
        solved = self.solve(m, vectors)  # graph-break: GB0098 GM620
        rows = rows_eagerly(solved)  # graph-break: GB0099 GM620
        return rows.sum() * 2


def inputs():
    return (torch.randn(3, 3),)
