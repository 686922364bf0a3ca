"""torcheval: Meta's metrics library, a functional API and stateful metric classes.

Users call functional metrics inside compiled evaluation and loss code, and compile the
evaluation step that updates a metric class and computes its value.
"""

from __future__ import annotations

import torch
from torcheval.metrics import MulticlassAccuracy
from torcheval.metrics.functional import binary_auroc, mean_squared_error, multiclass_f1_score

DISTRIBUTION = "torcheval"
PACKAGE = "torcheval"
WHY = "metrics: classification, ranking and regression metrics (functional and stateful)"


def call_multiclass_f1():
    return (
        multiclass_f1_score,
        (torch.randn(16, 5), torch.randint(0, 5, (16,))),
        {"num_classes": 5, "average": "macro"},
    )


def call_binary_auroc():
    return binary_auroc, (torch.rand(32), torch.randint(0, 2, (32,))), {}


def call_mean_squared_error():
    return mean_squared_error, (torch.randn(16, 3), torch.randn(16, 3)), {}


def _accuracy_step(metric: MulticlassAccuracy, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return metric.update(logits, target).compute()


def call_accuracy_update_compute():
    return (
        _accuracy_step,
        (MulticlassAccuracy(num_classes=5), torch.randn(16, 5), torch.randint(0, 5, (16,))),
        {},
    )
