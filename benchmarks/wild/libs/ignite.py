"""pytorch-ignite: training/evaluation engine whose metrics accumulate over batches.

Users compile the evaluation step: a metric's update on a batch's (y_pred, y), then compute.
"""

from __future__ import annotations

import torch
from ignite.metrics import PSNR, SSIM, Accuracy

DISTRIBUTION = "pytorch-ignite"
PACKAGE = "ignite"
WHY = "metrics: the PyTorch training library's classification and image metrics (stateful)"


def _update_compute(metric, y_pred: torch.Tensor, y: torch.Tensor):
    metric.reset()
    metric.update((y_pred, y))
    return metric.compute()


def call_accuracy():
    return _update_compute, (Accuracy(), torch.randn(16, 5), torch.randint(0, 5, (16,))), {}


def call_ssim():
    return _update_compute, (SSIM(data_range=1.0), torch.rand(2, 3, 32, 32), torch.rand(2, 3, 32, 32)), {}


def call_psnr():
    return _update_compute, (PSNR(data_range=1.0), torch.rand(2, 3, 32, 32), torch.rand(2, 3, 32, 32)), {}
