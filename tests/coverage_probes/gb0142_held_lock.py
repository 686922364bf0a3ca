"""GB0142 Unsupported context manager: a lock built in `__init__`, outside the compiled region, and
entered in forward (`with self.lock:`, GM612); Dynamo refuses managers held that way."""

import threading

import torch


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        with self.lock:  # graph-break: GB0142 GM612
            x = x + 1
        return x * 3


def inputs():
    return (torch.ones(3),)
