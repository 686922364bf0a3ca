"""torchphysics: physics-informed deep learning (PINNs, DeepRitz, DeepONet, FNO) on declared domains.

A torchphysics problem is a set of conditions (nn.Modules): each one's forward samples points of its
domain, evaluates the model on them and returns its loss (a PDE residual through the library's
autograd differential operators, a boundary residual). The library's Lightning `Solver` sums them
in every training step; users compile those condition forwards (and the models' forwards on the
library's `Points`). The residuals need input gradients, so the calls enable grad, as training does.

1.1.2 declares numpy<2 but runs on the set's numpy 2 (installed without dependencies).
"""

from __future__ import annotations

import torch
import torchphysics as tp

DISTRIBUTION = "torchphysics"
PACKAGE = "torchphysics"
WHY = "scientific ML: physics-informed networks with sampled domains and autograd differential operators"

X = tp.spaces.R2("x")
T = tp.spaces.R1("t")
U = tp.spaces.R1("u")


def _square():
    return tp.domains.Parallelogram(X, [0, 0], [1, 0], [0, 1])


def _with_grad(condition):
    def step():
        with torch.enable_grad():
            return condition(device="cpu")

    return step


def call_poisson_pde_condition():
    # The README's Poisson problem: -laplace(u) = 1 on the unit square, random interior points.
    torch.manual_seed(0)
    model = tp.models.FCN(input_space=X, output_space=U, hidden=(16, 16))

    def residual(u, x):
        return tp.utils.laplacian(u, x) + 1.0

    sampler = tp.samplers.RandomUniformSampler(_square(), n_points=64)
    return _with_grad(tp.conditions.PINNCondition(model, sampler, residual)), (), {}


def call_dirichlet_boundary_condition():
    torch.manual_seed(0)
    model = tp.models.FCN(input_space=X, output_space=U, hidden=(16, 16))

    def residual(u):
        return u

    sampler = tp.samplers.GridSampler(_square().boundary, n_points=64)
    return _with_grad(tp.conditions.PINNCondition(model, sampler, residual)), (), {}


def call_heat_equation_condition():
    # Time-dependent: the product domain (square x [0, 1]) and first and second derivatives.
    torch.manual_seed(0)
    model = tp.models.FCN(input_space=X * T, output_space=U, hidden=(16, 16))
    domain = _square() * tp.domains.Interval(T, 0, 1)

    def residual(u, x, t):
        return tp.utils.grad(u, t) - 0.1 * tp.utils.laplacian(u, x)

    sampler = tp.samplers.RandomUniformSampler(domain, n_points=64)
    return _with_grad(tp.conditions.PINNCondition(model, sampler, residual)), (), {}


def call_fcn_forward_points():
    torch.manual_seed(0)
    model = tp.models.FCN(input_space=X, output_space=U, hidden=(16, 16))
    points = tp.spaces.Points(torch.rand(32, 2), X)
    return model, (points,), {}
