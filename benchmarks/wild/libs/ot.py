"""POT (Python Optimal Transport) on its torch backend: optimal transport losses.

Users compile OT distances between point clouds as training losses: the entropic (Sinkhorn)
Wasserstein loss on a squared-Euclidean cost matrix, its log-domain stabilised variant for
unbalanced masses, the sliced Wasserstein distance, and the exact network-simplex loss.
"""

from __future__ import annotations

import ot
import torch

DISTRIBUTION = "POT"
PACKAGE = "ot"
WHY = "losses: optimal transport distances (Sinkhorn, unbalanced, sliced, exact) on torch tensors"


def _clouds():
    torch.manual_seed(0)
    xs, xt = torch.randn(16, 2), torch.randn(12, 2) + 1.0
    a, b = torch.full((16,), 1 / 16), torch.full((12,), 1 / 12)
    return xs, xt, a, b


def call_sinkhorn_loss():
    def sinkhorn_loss(xs, xt, a, b):
        return ot.sinkhorn2(a, b, ot.dist(xs, xt), reg=0.1, numItermax=50)

    return sinkhorn_loss, _clouds(), {}


def call_unbalanced_sinkhorn_loss():
    def unbalanced_loss(xs, xt, a, b):
        cost = ot.dist(xs, xt)
        return ot.unbalanced.sinkhorn_unbalanced2(a, b, cost / cost.max(), reg=0.1, reg_m=1.0, numItermax=50)

    return unbalanced_loss, _clouds(), {}


def call_sliced_wasserstein():
    xs, xt, a, b = _clouds()
    return ot.sliced_wasserstein_distance, (xs, xt, a, b), {"n_projections": 20, "seed": 0}


def call_emd_loss():
    def emd_loss(xs, xt, a, b):
        return ot.emd2(a, b, ot.dist(xs, xt))

    return emd_loss, _clouds(), {}
