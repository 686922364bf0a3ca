"""dadaptation: Meta's learning-rate-free optimizers (D-Adaptation: Adam, SGD, AdaGrad, Adan, Lion).

Each step estimates the distance to the solution `d` from running sums of gradient statistics and
sets the step size from it. Users compile the optimizer step, as torch.optim's own optimizers are
compiled.
"""

from __future__ import annotations

import dadaptation
import torch

DISTRIBUTION = "dadaptation"
PACKAGE = "dadaptation"
WHY = "optimisation: learning-rate-free optimizers whose step users compile; pure Python"


def _stepper(optimizer_class: type, steps: int = 2, **options: object):
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 4)
    optimizer = optimizer_class(model.parameters(), **options)
    for _ in range(steps):  # past the first step, the running sums (and `d`) are non-zero
        optimizer.zero_grad()
        model(torch.randn(4, 8)).square().mean().backward()
        optimizer.step()
    optimizer.zero_grad()
    model(torch.randn(4, 8)).square().mean().backward()
    return optimizer.step


def call_adam_step():
    """AdamW-style: decoupled weight decay, with bias correction."""
    return _stepper(dadaptation.DAdaptAdam, weight_decay=1e-2, decouple=True, use_bias_correction=True), (), {}


def call_sgd_momentum_step():
    return _stepper(dadaptation.DAdaptSGD, momentum=0.9, weight_decay=1e-4), (), {}


def call_adagrad_step():
    return _stepper(dadaptation.DAdaptAdaGrad, momentum=0.9), (), {}


def call_adan_step():
    return _stepper(dadaptation.DAdaptAdan), (), {}


def call_lion_step():
    return _stepper(dadaptation.DAdaptLion), (), {}
