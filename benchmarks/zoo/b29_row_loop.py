"""Looping over a tensor's rows: the index is static, the row's value is not."""

import torch


@torch.compile
def row_filter(x: torch.Tensor) -> torch.Tensor:
    out = []
    for i, row in enumerate(x * 2):
        if i == 0:
            out.append(row)
            continue
        if row.sum() > 0:
            out.append(row * 2)
        else:
            out.append(row)
    return torch.stack(out)


def case():
    return row_filter, (torch.randn(3, 4),)
