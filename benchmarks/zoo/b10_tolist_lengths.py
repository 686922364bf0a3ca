"""Splitting a packed batch by lengths read with `.tolist()`."""

import torch


def split_packed(packed: torch.Tensor, lengths: torch.Tensor) -> list[torch.Tensor]:
    packed = packed + 1
    sizes = lengths.tolist()
    return [chunk.mean(0) for chunk in torch.split(packed, sizes)]


split_packed_compiled = torch.compile(split_packed)


def case():
    return split_packed, (torch.randn(10, 3), torch.tensor([4, 6]))
