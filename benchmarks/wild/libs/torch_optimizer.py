"""torch-optimizer: a collection of optimizers (LAMB, RAdam, Yogi, AdaBelief, ...).

Users compile the optimizer step, as torch.optim's own optimizers are compiled.
"""

from __future__ import annotations

import torch
import torch_optimizer

DISTRIBUTION = "torch-optimizer"
PACKAGE = "torch_optimizer"
WHY = "optimisation: third-party optimizers whose step users compile"


def _stepper(optimizer_class: type, **options: float):
    model = torch.nn.Linear(8, 4)
    model(torch.randn(4, 8)).square().mean().backward()
    return optimizer_class(model.parameters(), **options).step


def call_lamb_step():
    return _stepper(torch_optimizer.Lamb, lr=1e-3), (), {}


def call_yogi_step():
    return _stepper(torch_optimizer.Yogi, lr=1e-2), (), {}


def call_adabelief_step():
    return _stepper(torch_optimizer.AdaBelief, lr=1e-3), (), {}
