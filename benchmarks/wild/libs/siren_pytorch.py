"""siren-pytorch: SIREN implicit neural representations (sine-activated MLPs, Sitzmann et al. 2020).

Users compile the network's forward on coordinates and the wrapper's forward that fits an image
(the README's training step returns the reconstruction loss), with and without a latent modulator.
"""

from __future__ import annotations

import torch
from siren_pytorch import SirenNet, SirenWrapper

DISTRIBUTION = "siren-pytorch"
PACKAGE = "siren_pytorch"
WHY = "scientific ML / generative: implicit neural representations with sine activations"


def _net(dim_in: int = 2, dim_out: int = 3) -> SirenNet:
    torch.manual_seed(0)
    return SirenNet(dim_in=dim_in, dim_hidden=32, dim_out=dim_out, num_layers=3, w0_initial=30.0)


def call_siren_net_forward():
    return _net(), (torch.rand(64, 2) * 2 - 1,), {}


def call_wrapper_image_loss():
    wrapper = SirenWrapper(_net(), image_width=16, image_height=16)
    return wrapper, (torch.randn(1, 3, 16, 16),), {}


def call_wrapper_modulated():
    wrapper = SirenWrapper(_net(), image_width=16, image_height=16, latent_dim=8)
    return wrapper, (), {"latent": torch.randn(8)}
