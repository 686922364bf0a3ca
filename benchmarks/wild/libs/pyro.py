"""pyro-ppl: deep probabilistic programming (SVI losses, distributions, autoregressive flows).

Users compile the ELBO loss of a model/guide pair and the log-density of flows.
"""

from __future__ import annotations

import pyro
import pyro.distributions as dist
import torch
from pyro.distributions.transforms import AffineAutoregressive
from pyro.infer import Trace_ELBO
from pyro.nn import AutoRegressiveNN

DISTRIBUTION = "pyro-ppl"
PACKAGE = "pyro"
WHY = "probabilistic: SVI on model/guide pairs, normalising flows, distributions"

DATA = torch.randn(16)


def _model(data: torch.Tensor) -> None:
    loc = pyro.sample("loc", dist.Normal(0.0, 1.0))
    with pyro.plate("data", data.shape[0]):
        pyro.sample("obs", dist.Normal(loc, 1.0), obs=data)


def _guide(data: torch.Tensor) -> None:
    q_loc = pyro.param("q_loc", torch.tensor(0.0))
    pyro.sample("loc", dist.Normal(q_loc, 1.0))


def call_trace_elbo_loss():
    pyro.clear_param_store()
    return Trace_ELBO().differentiable_loss, (_model, _guide, DATA), {}


def call_flow_log_prob():
    transform = AffineAutoregressive(AutoRegressiveNN(4, [16]))
    flow = dist.TransformedDistribution(dist.Normal(torch.zeros(4), torch.ones(4)).to_event(1), [transform])
    return flow.log_prob, (torch.randn(8, 4),), {}


def call_mixture_log_prob():
    mixture = dist.MixtureSameFamily(dist.Categorical(torch.ones(3)), dist.Normal(torch.randn(3), torch.ones(3)))
    return mixture.log_prob, (torch.randn(8),), {}
