"""GB0088 Observed exception: arithmetic on a tensor's `data_ptr()` (an alignment check) raises a
TypeError inside Dynamo, which holds the pointer as a stand-in that is no int; the pointer alone traces."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = x * 2
        pointer = x.data_ptr()
        aligned = x.data_ptr() % 16 == 0  # graph-break: GB0088 GM656
        return out + float(aligned) + float(pointer)


def inputs():
    return (torch.ones(2, 3),)
