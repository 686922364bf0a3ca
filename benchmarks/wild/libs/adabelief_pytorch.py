"""adabelief-pytorch: the AdaBelief optimizer (Zhuang et al., NeurIPS 2020), the authors' package.

Adam with the second moment taken of the gradient's deviation from its running mean (the
"belief"), rectified as in RAdam by default, with decoupled weight decay. Users compile the
optimizer step, as torch.optim's own optimizers are compiled.
"""

from __future__ import annotations

import torch
from adabelief_pytorch import AdaBelief

DISTRIBUTION = "adabelief-pytorch"
PACKAGE = "adabelief_pytorch"
WHY = "optimisation: the AdaBelief optimizer (rectified, decoupled weight decay), whose step users compile"


def _stepper(steps: int = 2, **options: object):
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 4)
    optimizer = AdaBelief(model.parameters(), lr=1e-3, print_change_log=False, **options)
    for _ in range(steps):  # past the first step, the state (and the RAdam buffer) is filled
        optimizer.zero_grad()
        model(torch.randn(4, 8)).square().mean().backward()
        optimizer.step()
    optimizer.zero_grad()
    model(torch.randn(4, 8)).square().mean().backward()
    return optimizer.step


def call_rectified_step():
    # The defaults: rectified (RAdam-style) update, decoupled weight decay.
    return _stepper(weight_decay=1e-2), (), {}


def call_adam_style_step():
    # rectify=False: the plain Adam-style update, with L2 weight decay added to the gradient.
    return _stepper(rectify=False, weight_decouple=False, weight_decay=1e-4), (), {}


def call_amsgrad_step():
    return _stepper(rectify=False, amsgrad=True), (), {}
