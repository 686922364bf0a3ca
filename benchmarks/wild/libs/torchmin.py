"""pytorch-minimize (`torchmin`): scipy.optimize.minimize-style solvers (BFGS, L-BFGS, CG, Newton)
on PyTorch tensors, with autograd gradients and Hessian-vector products.

Users compile the solve of a small deterministic problem (`minimize(fun, x0, method=...)`).
"""

from __future__ import annotations

import torch
import torchmin

DISTRIBUTION = "pytorch-minimize"
PACKAGE = "torchmin"
WHY = "optimisation: deterministic minimizers (quasi-Newton, Newton, trust region) on tensors"


def _quadratic(x: torch.Tensor) -> torch.Tensor:
    return (x - 1.0).square().sum() + 0.5 * (x[:-1] * x[1:]).sum()


def call_bfgs():
    return torchmin.minimize, (_quadratic, torch.zeros(4)), {"method": "bfgs", "max_iter": 10}


def call_l_bfgs():
    return torchmin.minimize, (_quadratic, torch.zeros(4)), {"method": "l-bfgs", "max_iter": 10}


def call_newton_cg():
    return torchmin.minimize, (_quadratic, torch.zeros(4)), {"method": "newton-cg", "max_iter": 10}
