"""GB0007 Attempted to call function marked as skipped: a C function of an installed package's
extension module (regex._regex, built with the C API), which Dynamo has no handler for (GM651)."""

import regex._regex
import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        size = regex._regex.get_code_size()  # graph-break: GB0007 GM651
        return x + size


def inputs():
    return (torch.ones(3),)
