"""GB5976 Data pointer comparison: `query.data_ptr() == key.data_ptr()` on two inputs breaks at the
comparison; the same tensor's pointer on both sides (through `detach()` too) and `query is key` trace."""

import torch


class Probe(torch.nn.Module):
    def forward(self, query: torch.Tensor, key: torch.Tensor) -> torch.Tensor:
        out = query * 2
        if query is key or query.data_ptr() != query.detach().data_ptr():
            out = out + 1
        if query.data_ptr() == key.data_ptr():  # graph-break: GB5976 GM672
            out = out + key
        return out


def inputs():
    return (torch.ones(2, 3), torch.ones(2, 3))
