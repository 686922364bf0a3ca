"""lion-pytorch: the Lion optimizer (sign-momentum, Chen et al. 2023), lucidrains.

Users compile the optimizer step.
"""

from __future__ import annotations

import torch
from lion_pytorch import Lion

DISTRIBUTION = "lion-pytorch"
PACKAGE = "lion_pytorch"
WHY = "optimisation: the Lion optimizer, whose step users compile"


def _step(**options: object):
    model = torch.nn.Linear(8, 4)
    model(torch.randn(4, 8)).square().mean().backward()
    return Lion(model.parameters(), lr=1e-4, **options).step


def call_step():
    return _step(), (), {}


def call_step_decoupled_weight_decay():
    return _step(weight_decay=1e-2, decoupled_weight_decay=True), (), {}
