"""torch-harmonics: differentiable spherical harmonic transforms and neural operators on the sphere.

Users compile what runs on every training step of a model on spherical data (weather, climate,
360-degree images): the forward of the library's transforms and layers (real SHT and its inverse,
discrete-continuous (DISCO) convolutions on the sphere), the Spherical Fourier Neural Operator of its
examples package, and the quadrature-weighted losses on the sphere; and the shallow-water solver's
spectral time stepping (`ShallowWaterSolver.timestep`), the classical solver the SFNO paper trains
against and users run to generate data.

0.8.0 from its sdist: the wheels of 0.9.x link compiled extensions built for another torch; built
without torch in the build environment, 0.8.0 falls back to its pure-PyTorch DISCO contraction.
"""

from __future__ import annotations

import torch
import torch_harmonics as th
from torch_harmonics.examples import ShallowWaterSolver
from torch_harmonics.examples.losses import L2LossS2
from torch_harmonics.examples.models import SphericalFourierNeuralOperator

DISTRIBUTION = "torch-harmonics"
PACKAGE = "torch_harmonics"
WHY = "scientific ML: spherical harmonic transforms, DISCO convolutions and neural operators on the sphere"

NLAT, NLON = 16, 32


def call_sht_spectral_filter():
    # The library's README use: forward SHT, a filter in spectral space, inverse SHT.
    torch.manual_seed(0)
    sht = th.RealSHT(NLAT, NLON, grid="equiangular")
    isht = th.InverseRealSHT(NLAT, NLON, grid="equiangular")
    lmax = sht.lmax
    damp = torch.exp(-torch.arange(lmax, dtype=torch.float32) / 4.0).unsqueeze(-1)

    def smooth(x):
        return isht(sht(x) * damp)

    return smooth, (torch.randn(2, 3, NLAT, NLON),), {}


def call_disco_conv_s2():
    torch.manual_seed(0)
    conv = th.DiscreteContinuousConvS2(
        3, 4, in_shape=(NLAT, NLON), out_shape=(NLAT // 2, NLON // 2), kernel_shape=3, theta_cutoff=0.5
    )
    return conv, (torch.randn(2, 3, NLAT, NLON),), {}


def call_sfno_l2_loss():
    # The SFNO training step of the library's examples: model forward and the sphere-weighted L2 loss.
    torch.manual_seed(0)
    model = SphericalFourierNeuralOperator(
        img_size=(NLAT, NLON), in_chans=3, out_chans=3, embed_dim=16, num_layers=2, scale_factor=2
    )
    loss_fn = L2LossS2(NLAT, NLON)

    def step(x, y):
        return loss_fn(model(x), y)

    return step, (torch.randn(2, 3, NLAT, NLON), torch.randn(2, 3, NLAT, NLON)), {}


def call_shallow_water_timestep():
    torch.manual_seed(0)
    solver = ShallowWaterSolver(NLAT, NLON, dt=60.0, grid="equiangular").to(torch.float32)
    uspec = solver.random_initial_condition(mach=0.1)
    return solver.timestep, (uspec, 3), {}
