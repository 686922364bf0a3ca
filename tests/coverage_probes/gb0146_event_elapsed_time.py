"""GB0146 Unsupported event method: `start.elapsed_time(end)` on events built in traced code breaks at
the call; building them traces. On this CPU build an event cannot be recorded, so the eager call
raises and is caught here; the break comes first."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        start = torch.Event("cpu", enable_timing=True)
        try:
            millis = start.elapsed_time(start)  # graph-break: GB0146 GM674
        except ValueError:
            millis = 0.0
        return x * 2 + millis


def inputs():
    return (torch.ones(2, 3),)
