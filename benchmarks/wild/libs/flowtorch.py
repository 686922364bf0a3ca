"""flowtorch: Meta's normalizing flows; a lazily built bijector turned into a torch Distribution.

Users compile the flow's training loss (the negative log-likelihood of data) and sampling with the
reparameterisation trick, as flowtorch's README does with `Flow(base, bijector)`.
"""

from __future__ import annotations

import flowtorch.bijectors as bij
import flowtorch.distributions as dist
import torch

DISTRIBUTION = "flowtorch"
PACKAGE = "flowtorch"
WHY = "probabilistic ML: normalizing flows (autoregressive affine/spline bijectors); pure Python"


def _flow(bijector, dim: int = 3):
    torch.manual_seed(0)
    base = torch.distributions.Independent(torch.distributions.Normal(torch.zeros(dim), torch.ones(dim)), 1)
    return dist.Flow(base, bijector)


def _nll(flow):
    def loss(x):
        return -flow.log_prob(x).mean()

    return loss


def call_affine_autoregressive_log_prob():
    flow = _flow(bij.AffineAutoregressive())
    return _nll(flow), (torch.randn(16, 3),), {}


def call_spline_autoregressive_log_prob():
    flow = _flow(bij.SplineAutoregressive())
    return _nll(flow), (torch.randn(16, 3),), {}


def call_composed_rsample():
    flow = _flow(
        bij.Compose(
            [
                bij.AffineAutoregressive(),
                bij.Permute(permutation=torch.tensor([2, 0, 1])),
                bij.AffineAutoregressive(),
            ]
        )
    )

    def sample():
        return flow.rsample((8,))

    return sample, (), {}
