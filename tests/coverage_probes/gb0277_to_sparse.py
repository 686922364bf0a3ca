"""GB0277 Attempted to wrap sparse Tensor with VariableTracker: `t.to_sparse()` (and `to_sparse_coo`,
`_csr`, `_csc`, `_bsr`, `_bsc`) in traced code breaks at the call; `to_dense()` traces. The result is
dropped: a sparse tensor alive after the call is an input of the graph that resumes, which breaks
again there (GB0015)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        y.to_dense()
        y.to_sparse_csr()  # graph-break: GB0277 GM670
        return y + 1


def inputs():
    return (torch.ones(2, 3),)
