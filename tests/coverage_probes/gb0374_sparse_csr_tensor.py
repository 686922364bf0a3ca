"""GB0374 Sparse tensor creation not supported: `torch.sparse_csr_tensor(...)` (and the other compressed
layouts: csc, bsr, bsc, `sparse_compressed_tensor`) in traced code breaks at the call. The result is
dropped: a sparse tensor alive after the call is an input of the graph that resumes, which breaks
again there (GB0015)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        crow, col = torch.tensor([0, 1, 2]), torch.tensor([0, 1])
        torch.sparse_csr_tensor(crow, col, y[0, :2], size=(2, 2))  # graph-break: GB0374 GM670
        return y + 1


def inputs():
    return (torch.ones(2, 3),)
