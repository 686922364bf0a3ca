"""botorch: Bayesian optimisation on GPyTorch models (GP posteriors, Monte-Carlo acquisitions).

Users compile acquisition-function evaluation, the inner loop of candidate optimisation.
"""

from __future__ import annotations

import torch
from botorch.acquisition import qLogExpectedImprovement
from botorch.acquisition.analytic import LogExpectedImprovement
from botorch.models import SingleTaskGP

DISTRIBUTION = "botorch"
PACKAGE = "botorch"
WHY = "probabilistic: Bayesian optimisation, acquisition functions over GP posteriors"


def _model() -> SingleTaskGP:
    train_x = torch.rand(8, 2, dtype=torch.float64)
    train_y = (train_x.sum(dim=-1, keepdim=True) - 1.0).sin()
    return SingleTaskGP(train_x, train_y).eval()


def call_posterior():
    return _model().posterior, (torch.rand(4, 2, dtype=torch.float64),), {}


def call_analytic_log_ei():
    return LogExpectedImprovement(_model(), best_f=0.2), (torch.rand(4, 1, 2, dtype=torch.float64),), {}


def call_q_log_ei():
    return qLogExpectedImprovement(_model(), best_f=0.2), (torch.rand(3, 2, 2, dtype=torch.float64),), {}
