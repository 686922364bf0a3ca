"""schedulefree: Schedule-Free optimizers (AdamW, SGD, RAdam without a learning-rate schedule), Meta.

Users compile the optimizer step, and switch the optimizer between its train and eval points with
`train()` / `eval()` next to the model's.
"""

from __future__ import annotations

import schedulefree
import torch

DISTRIBUTION = "schedulefree"
PACKAGE = "schedulefree"
WHY = "optimisation: schedule-free optimizers whose step and train/eval switch users compile"


def _optimizer(optimizer_class: type, **options: object) -> torch.optim.Optimizer:
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 4)
    model(torch.randn(4, 8)).square().mean().backward()
    optimizer = optimizer_class(model.parameters(), **options)
    optimizer.train()
    return optimizer


def call_adamw_step():
    return _optimizer(schedulefree.AdamWScheduleFree, lr=1e-3, warmup_steps=10).step, (), {}


def call_adamw_eval():
    optimizer = _optimizer(schedulefree.AdamWScheduleFree, lr=1e-3)
    optimizer.step()
    return optimizer.eval, (), {}


def call_sgd_step():
    return _optimizer(schedulefree.SGDScheduleFree, lr=1e-2, weight_decay=1e-4).step, (), {}


def call_radam_step():
    return _optimizer(schedulefree.RAdamScheduleFree, lr=1e-3).step, (), {}
