"""geomloss: geometric losses between point clouds (Sinkhorn divergences, MMD), tensorised backend.

Users compile training steps whose loss is an optimal-transport distance.
"""

from __future__ import annotations

import torch
from geomloss import SamplesLoss

DISTRIBUTION = "geomloss"
PACKAGE = "geomloss"
WHY = "scientific ML: optimal-transport and kernel losses between distributions"


def call_sinkhorn():
    loss = SamplesLoss("sinkhorn", p=2, blur=0.1, backend="tensorized")
    return loss, (torch.randn(32, 2), torch.randn(24, 2)), {}


def call_gaussian_mmd():
    return SamplesLoss("gaussian", blur=0.5, backend="tensorized"), (torch.randn(32, 2), torch.randn(24, 2)), {}
