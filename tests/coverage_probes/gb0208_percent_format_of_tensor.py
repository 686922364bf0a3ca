"""GB0208 torch.* op returned non-Tensor: `"%s" % t`, text formatting of a tensor alone (GM622);
in a tuple it is `str` of the tensor (GB0059), as a number its value (GB0033)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        label = "%s" % y  # graph-break: GB0208 GM622
        return y + len(label)


def inputs():
    return (torch.ones(3),)
