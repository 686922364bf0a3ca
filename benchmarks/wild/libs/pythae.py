"""pythae: a zoo of generative autoencoders (VAE, VQ-VAE, IWAE, RHVAE, ...) behind one API.

Users compile a model's forward, which takes the library's dataset dict and returns its training
loss with the reconstruction: a plain VAE, a VAE with a VampPrior (a mixture over learned
pseudo-inputs), an importance-weighted VAE and the Riemannian Hamiltonian VAE (leapfrog steps through
`torch.autograd.grad`), each with the default MLP encoder and decoder the config builds. VQ-VAE,
VAE_IAF and VAE_LinNF were tried and dropped: under `torch.compile` their forwards raise
(AttributeError: 'ModelOutput' object has no attribute 'quantized_vector' / 'mu' / 'out', the
outputs of their quantizer and flow layers), where they run eagerly.
"""

from __future__ import annotations

import torch
from pythae.models import IWAE, RHVAE, VAE, VAMP, IWAEConfig, RHVAEConfig, VAEConfig, VAMPConfig

DISTRIBUTION = "pythae"
PACKAGE = "pythae"
WHY = "generative models: variational, mixture-prior and Hamiltonian autoencoders and their losses"

_INPUT = (1, 8, 8)


def _batch() -> dict[str, torch.Tensor]:
    return {"data": torch.rand(4, *_INPUT)}


def call_vae_forward():
    torch.manual_seed(0)
    return VAE(VAEConfig(input_dim=_INPUT, latent_dim=4)), (_batch(),), {}


def call_vamp_forward():
    torch.manual_seed(0)
    return VAMP(VAMPConfig(input_dim=_INPUT, latent_dim=4, number_components=5)), (_batch(),), {}


def call_iwae_forward():
    torch.manual_seed(0)
    return IWAE(IWAEConfig(input_dim=_INPUT, latent_dim=4, number_samples=3)), (_batch(),), {}


def call_rhvae_forward():
    torch.manual_seed(0)
    model = RHVAE(RHVAEConfig(input_dim=_INPUT, latent_dim=4, n_lf=2))

    def step(batch):  # a training step: RHVAE's leapfrog integrator differentiates its potential
        with torch.enable_grad():
            return model(batch)

    return step, (_batch(),), {}
