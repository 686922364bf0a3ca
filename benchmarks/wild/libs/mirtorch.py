"""MIRTorch (University of Michigan): differentiable linear operators and iterative solvers for
image reconstruction (MRI SENSE and non-Cartesian NUFFT, CT), with proximal operators.

Users compile the pieces of a reconstruction or an unrolled network: the SENSE normal operator
(`A.H * A` applied to an image), a conjugate-gradient SENSE reconstruction with Tikhonov
regularisation, and a FISTA solve with an L1 proximal step (its gradient written with the operator's methods).
"""

from __future__ import annotations

import torch
from mirtorch.alg import CG, FISTA
from mirtorch.linear import Identity, Sense
from mirtorch.prox import L1Regularizer

DISTRIBUTION = "mirtorch"
PACKAGE = "mirtorch"
WHY = "medical imaging: MRI/CT reconstruction operators and iterative solvers"

_COILS, _NX, _NY = 4, 16, 16


def _sense() -> Sense:
    torch.manual_seed(0)
    smaps = torch.randn(1, _COILS, _NX, _NY, dtype=torch.complex64)
    smaps = smaps / smaps.abs().square().sum(dim=1, keepdim=True).sqrt()
    mask = (torch.rand(1, _NX, _NY) > 0.5).to(torch.complex64)
    return Sense(smaps, mask)


def _image() -> torch.Tensor:
    torch.manual_seed(1)
    return torch.randn(1, 1, _NX, _NY, dtype=torch.complex64)


def call_sense_normal_operator():
    sense = _sense()

    def normal(x):  # A^H A x: the data-consistency term of an unrolled network
        return sense.H * (sense * x)

    return normal, (_image(),), {}


def call_cg_sense_reconstruction():
    sense = _sense()
    kspace = sense * _image()
    normal = sense.H * sense + 0.01 * Identity(sense.size_in)
    solver = CG(normal, max_iter=5, tol=0.0)
    return solver.run, (torch.zeros_like(_image()), sense.H * kspace), {}


def call_fista_l1():
    sense = _sense()
    kspace = sense * _image()

    def grad(x):  # by the operator's methods: `sense * x` here would break in this file, not the library's
        return sense.adjoint(sense.apply(x) - kspace)

    solver = FISTA(grad, f_L=1.0, g_prox=L1Regularizer(0.01), max_iter=4, compile=False)
    return solver.run, (torch.zeros_like(_image()),), {}
