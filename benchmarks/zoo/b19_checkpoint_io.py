"""I/O inside a compiled step: torch.save, open(), an explicit graph_break."""

import os
import tempfile

import torch

OUT = os.path.join(tempfile.gettempdir(), "graphmend_zoo_b19")


@torch.compile
def train_step(weights: torch.Tensor, grad: torch.Tensor) -> torch.Tensor:
    weights = weights - 0.1 * grad
    torch.save(weights, OUT + ".pt")
    with open(OUT + ".log", "a") as handle:
        handle.write("step\n")
    weights = weights * 0.99
    torch._dynamo.graph_break()
    return weights + 1


def case():
    return train_step, (torch.randn(4), torch.randn(4))
