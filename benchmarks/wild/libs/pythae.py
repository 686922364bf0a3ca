"""pythae: a zoo of generative autoencoders (VAE, VQ-VAE, IWAE, RHVAE, ...) behind one API.

Users compile a model's forward, which takes the library's dataset dict and returns its training
loss with the reconstruction: a plain VAE, a VQ-VAE (codebook lookup), an importance-weighted VAE
and the Riemannian Hamiltonian VAE (leapfrog steps through `torch.autograd.grad`), each with the
default MLP encoder and decoder the config builds.
"""

from __future__ import annotations

import torch
from pythae.models import IWAE, RHVAE, VAE, VQVAE, IWAEConfig, RHVAEConfig, VAEConfig, VQVAEConfig

DISTRIBUTION = "pythae"
PACKAGE = "pythae"
WHY = "generative models: variational, vector-quantised and Hamiltonian autoencoders and their losses"

_INPUT = (1, 8, 8)


def _batch() -> dict[str, torch.Tensor]:
    return {"data": torch.rand(4, *_INPUT)}


def call_vae_forward():
    torch.manual_seed(0)
    return VAE(VAEConfig(input_dim=_INPUT, latent_dim=4)), (_batch(),), {}


def call_vqvae_forward():
    torch.manual_seed(0)
    model = VQVAE(VQVAEConfig(input_dim=_INPUT, latent_dim=4, num_embeddings=16))
    return model, (_batch(),), {}


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
