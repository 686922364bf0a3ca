"""laplace (laplace-torch): Laplace approximations of a trained network's posterior.

After fitting the approximation once (a pass over the training data, done here at build time),
users compile what runs again and again: the predictive (`la(x)`, the linearised GLM predictive
with a probit or closed-form link, or Monte Carlo samples of it) on every test batch, and the log
marginal likelihood that the README's hyperparameter loop differentiates with respect to the prior
precision and observation noise at every step.
"""

from __future__ import annotations

import torch
from laplace import Laplace
from torch.utils.data import DataLoader, TensorDataset

DISTRIBUTION = "laplace-torch"
PACKAGE = "laplace"
WHY = "probabilistic: post-hoc Laplace approximations (last-layer / all weights; Kron, diag, full), GLM predictive, marginal likelihood"


def _mlp(n_in: int, n_out: int) -> torch.nn.Sequential:
    return torch.nn.Sequential(torch.nn.Linear(n_in, 16), torch.nn.Tanh(), torch.nn.Linear(16, n_out))


def _fitted(likelihood: str, n_out: int, **kwargs):
    torch.manual_seed(0)
    model = _mlp(4, n_out)
    x = torch.randn(32, 4)
    y = torch.randint(0, n_out, (32,)) if likelihood == "classification" else torch.randn(32, n_out)
    la = Laplace(model, likelihood, **kwargs)
    la.fit(DataLoader(TensorDataset(x, y), batch_size=8))
    return la


def call_last_layer_kron_probit_predictive():
    # The README's default: last-layer, Kronecker-factored GGN, GLM predictive with the probit link.
    la = _fitted("classification", 3)
    return la, (torch.randn(8, 4),), {"pred_type": "glm", "link_approx": "probit"}


def call_last_layer_kron_predictive_samples():
    la = _fitted("classification", 3)
    return la.predictive_samples, (torch.randn(8, 4),), {"pred_type": "glm", "n_samples": 8}


def call_last_layer_full_regression_predictive():
    # Regression: the GLM predictive returns the mean and the (co)variance of f.
    la = _fitted("regression", 1, subset_of_weights="last_layer", hessian_structure="full")
    return la, (torch.randn(8, 4),), {"pred_type": "glm"}


def call_diag_log_marginal_likelihood():
    # The README's hyperparameter loop: -la.log_marginal_likelihood(prior_prec, sigma_noise).
    la = _fitted("regression", 1, subset_of_weights="all", hessian_structure="diag")
    return la.log_marginal_likelihood, (torch.tensor(1.5), torch.tensor(0.5)), {}
