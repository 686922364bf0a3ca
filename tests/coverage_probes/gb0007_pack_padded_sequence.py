"""GB0007 Attempted to call function marked as skipped: `pack_padded_sequence` and `pad_packed_sequence` (GM604)."""

import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        packed = pack_padded_sequence(x.view(1, 3, 1), [3], batch_first=True)  # graph-break: GB0007 GM604
        padded, _ = pad_packed_sequence(packed, batch_first=True)  # graph-break: GB0007 GM604
        return x + padded.sum()


def inputs():
    return (torch.ones(3),)
