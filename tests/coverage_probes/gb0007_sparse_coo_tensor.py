"""GB0007 Attempted to call function marked as skipped: `torch.sparse_coo_tensor(...)` in traced code
breaks at the call (GM670, with the other sparse factories). The result is dropped: a sparse tensor
alive after the call is an input of the graph that resumes, which breaks again there (GB0015)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        indices = torch.tensor([[0, 1], [0, 1]])
        torch.sparse_coo_tensor(indices, y[0, :2], size=(2, 2))  # graph-break: GB0007 GM670
        return y + 1


def inputs():
    return (torch.ones(2, 3),)
