"""posteriors (Normal Computing): functional uncertainty quantification for PyTorch models.

Every method is a `Transform` built from a log-posterior: `state = transform.init(params)`, then
`transform.update(state, batch)` per step, which is what users compile. The calls run one update of
the diagonal empirical Fisher Laplace approximation, stochastic-gradient Langevin dynamics and HMC,
and the diagonal extended Kalman filter, each on a small regression MLP turned into a function of its
parameters (`model_to_function`). Diagonal variational inference was dropped: under `torch.compile`
its update raises (ValueError: length mismatch, from optree's utils.py under Dynamo's pytree
polyfill, torch/_dynamo/polyfills/pytree.py), where it runs eagerly.
"""

from __future__ import annotations

import posteriors
import torch
from torch import nn

DISTRIBUTION = "posteriors"
PACKAGE = "posteriors"
WHY = "uncertainty quantification: variational inference, Laplace, SGMCMC and Kalman updates"


def _problem():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
    func = posteriors.model_to_function(model)
    params = {k: v.detach().clone() for k, v in model.named_parameters()}

    def log_likelihood(p, batch):
        x, y = batch
        pred = func(p, x)
        log_lik = torch.distributions.Normal(pred, 1.0).log_prob(y).sum()
        return log_lik, pred

    def log_posterior(p, batch):
        log_lik, pred = log_likelihood(p, batch)
        log_prior = posteriors.diag_normal_log_prob(p, sd_diag=1.0, normalize=False)
        return log_lik + log_prior / batch[0].shape[0], pred

    batch = (torch.randn(16, 3), torch.randn(16, 1))
    return params, log_likelihood, log_posterior, batch


def _step(transform, params, batch):
    state = transform.init(params)
    return transform.update, (state, batch), {}


def call_sgld_update():
    params, _, log_post, batch = _problem()
    return _step(posteriors.sgmcmc.sgld.build(log_post, lr=1e-3), params, batch)


def call_laplace_diag_fisher_update():
    params, _, log_post, batch = _problem()
    return _step(posteriors.laplace.diag_fisher.build(log_post), params, batch)


def call_sghmc_update():
    params, _, log_post, batch = _problem()
    return _step(posteriors.sgmcmc.sghmc.build(log_post, lr=1e-3), params, batch)


def call_ekf_diag_fisher_update():
    params, log_lik, _, batch = _problem()
    return _step(posteriors.ekf.diag_fisher.build(log_lik, lr=1e-2), params, batch)
