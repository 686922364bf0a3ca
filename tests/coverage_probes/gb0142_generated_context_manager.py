"""GB0142 Unsupported context manager: a torch context manager Dynamo refuses whatever its
arguments, from the table generated from the installed torch (GM612)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        with torch.autograd.set_detect_anomaly(True):  # graph-break: GB0142 GM612
            x = x + 1
        return x + 1


def inputs():
    return (torch.ones(3),)
