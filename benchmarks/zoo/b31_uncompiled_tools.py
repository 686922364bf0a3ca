"""Evaluation utilities nothing compiles: data-dependent code here runs eagerly and is fine.

Only `smooth` is compiled (torch.compile(smooth)); the metrics are plain functions.
"""

import torch


def accuracy(logits: torch.Tensor, labels: torch.Tensor) -> float:
    correct = (logits.argmax(-1) == labels).sum()
    if correct.item() == 0:
        print("no correct predictions")
    return float(correct) / labels.numel()


def top_errors(losses: torch.Tensor) -> list:
    bad = losses[losses > losses.mean()]
    return torch.nonzero(losses > 0).flatten().tolist() + bad.tolist()


def smooth(x: torch.Tensor) -> torch.Tensor:
    return 0.9 * x + 0.1 * x.mean()


smooth_compiled = torch.compile(smooth)


def case():
    return smooth, (torch.randn(5),)


def driver():
    logits, labels = torch.randn(6, 3), torch.randint(0, 3, (6,))
    accuracy(logits, labels)
    top_errors(torch.randn(6))
    smooth(torch.randn(5))
