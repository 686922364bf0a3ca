"""pytorch_optimizer (kozistr): a zoo of optimizers (Lion, Adan, Prodigy, ...), schedulers and losses.

Users compile the optimizer step, and the losses as part of their model's training step.
"""

from __future__ import annotations

import pytorch_optimizer
import torch

DISTRIBUTION = "pytorch_optimizer"
PACKAGE = "pytorch_optimizer"
WHY = "optimisation: a collection of recent optimizers and segmentation/classification losses"


def _stepper(optimizer_class: type, **options: object):
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 4)
    model(torch.randn(4, 8)).square().mean().backward()
    return optimizer_class(model.parameters(), **options).step


def call_lion_step():
    return _stepper(pytorch_optimizer.Lion, lr=1e-4, weight_decay=1e-2), (), {}


def call_adan_step():
    return _stepper(pytorch_optimizer.Adan, lr=1e-3, weight_decay=1e-2), (), {}


def call_prodigy_step():
    return _stepper(pytorch_optimizer.Prodigy, lr=1.0), (), {}


def call_dice_loss():
    torch.manual_seed(0)
    loss = pytorch_optimizer.DiceLoss(mode="multiclass")
    return loss, (torch.randn(2, 3, 8, 8), torch.randint(0, 3, (2, 8, 8))), {}
