"""normflows: normalising flows with a training-loss API (forward KL, reverse KL).

Users compile `forward_kld` in the training loop and `sample` at inference.
"""

from __future__ import annotations

import normflows as nf
import torch

DISTRIBUTION = "normflows"
PACKAGE = "normflows"
WHY = "probabilistic / generative: normalising flows (RealNVP, neural splines) with KL losses"


def _real_nvp() -> nf.NormalizingFlow:
    flows = []
    for i in range(2):
        mask = torch.tensor([1.0, 0.0]) if i % 2 == 0 else torch.tensor([0.0, 1.0])
        flows.append(nf.flows.MaskedAffineFlow(mask, nf.nets.MLP([2, 16, 2], init_zeros=True), nf.nets.MLP([2, 16, 2], init_zeros=True)))
    return nf.NormalizingFlow(q0=nf.distributions.DiagGaussian(2), flows=flows)


def call_forward_kld():
    return _real_nvp().forward_kld, (torch.randn(8, 2),), {}


def call_sample():
    return _real_nvp().sample, (4,), {}


def call_spline_log_prob():
    flows = [nf.flows.AutoregressiveRationalQuadraticSpline(2, 1, 16) for _ in range(2)]
    model = nf.NormalizingFlow(q0=nf.distributions.DiagGaussian(2), flows=flows)
    return model.log_prob, (torch.randn(8, 2),), {}
