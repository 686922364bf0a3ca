"""torch.unique on labels.

Measured on torch 2.13 (CPU): torch.unique DOES break the graph (dynamic shape operator),
although DESIGN.md's table lists it as fine. Measurement wins: it is reported.
"""

import torch


def label_histogram(labels: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    labels = labels * 1
    classes = torch.unique(labels)
    return weights[: classes.numel()].sum() + classes.sum()


label_histogram_compiled = torch.compile(label_histogram)


def case():
    return label_histogram, (torch.tensor([1, 3, 3, 7]), torch.randn(8))
