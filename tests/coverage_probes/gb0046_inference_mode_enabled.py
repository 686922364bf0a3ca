"""GB0046 Encountered torch.is_inference_mode_enabled during tracing (GM621)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        x = x + float(torch.is_inference_mode_enabled())  # graph-break: GB0046 GM621
        return x - 1


def inputs():
    return (torch.ones(3),)
