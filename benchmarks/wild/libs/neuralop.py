"""neuraloperator: neural operators for PDEs (the Fourier Neural Operator, 1-D and 2-D), with their
Sobolev-norm losses.

Users compile the operator's forward on a grid, and its Lp / H1 losses in the training step.
"""

from __future__ import annotations

import torch
from neuralop import FNO, H1Loss, LpLoss

DISTRIBUTION = "neuraloperator"
PACKAGE = "neuralop"
WHY = "scientific ML: Fourier neural operators on a grid and their function-space losses"


def call_fno2d_forward():
    torch.manual_seed(0)
    model = FNO(n_modes=(8, 8), in_channels=1, out_channels=1, hidden_channels=16, n_layers=2)
    return model, (torch.randn(2, 1, 16, 16),), {}


def call_fno1d_forward():
    # a Tucker-factorised TFNO was measured too: Dynamo took 460 s over tensorly's einsum backend
    torch.manual_seed(0)
    model = FNO(n_modes=(12,), in_channels=2, out_channels=1, hidden_channels=16, n_layers=2)
    return model, (torch.randn(2, 2, 32),), {}


def call_lp_loss():
    torch.manual_seed(0)
    return LpLoss(d=2, p=2), (torch.randn(2, 1, 16, 16), torch.randn(2, 1, 16, 16)), {}


def call_h1_loss():
    torch.manual_seed(0)
    return H1Loss(d=2), (torch.randn(2, 1, 16, 16), torch.randn(2, 1, 16, 16)), {}
