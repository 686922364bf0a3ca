"""GB0008 Attempted to inline function marked as skipped: `SeedSequence.generate_state` (GM604)."""

import numpy as np
import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        sequence = np.random.SeedSequence(3)  # graph-break: GB0156 GM604
        return x + len(sequence.generate_state(4))  # graph-break: GB0008 GM604


def inputs():
    return (torch.ones(3),)
