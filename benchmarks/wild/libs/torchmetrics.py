"""torchmetrics: metrics as nn.Modules with accumulated state, and a functional API.

Users compile the evaluation step (metric update/forward) and call functional metrics in losses.
"""

from __future__ import annotations

import torch
from torchmetrics.classification import MulticlassAccuracy
from torchmetrics.functional.classification import multiclass_f1_score
from torchmetrics.image import StructuralSimilarityIndexMeasure

DISTRIBUTION = "torchmetrics"
PACKAGE = "torchmetrics"
WHY = "metrics: the standard metric library (classification, image, regression), stateful modules"


def call_multiclass_accuracy():
    return MulticlassAccuracy(num_classes=5), (torch.randn(16, 5).softmax(-1), torch.randint(0, 5, (16,))), {}


def call_functional_f1():
    return multiclass_f1_score, (torch.randn(16, 5), torch.randint(0, 5, (16,))), {"num_classes": 5}


def call_ssim():
    return StructuralSimilarityIndexMeasure(data_range=1.0), (torch.rand(2, 3, 32, 32), torch.rand(2, 3, 32, 32)), {}
