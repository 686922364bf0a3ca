"""geoopt: Riemannian optimisation (manifold-aware tensors, Riemannian Adam/SGD), PyTorch-native.

Users compile the Riemannian optimizer's step and the manifold maps (retraction, exponential map,
distance) they call inside their models.
"""

from __future__ import annotations

import geoopt
import torch

DISTRIBUTION = "geoopt"
PACKAGE = "geoopt"
WHY = "optimisation / geometry: Riemannian optimizers and manifold operations"


def _stiefel_parameter() -> geoopt.ManifoldParameter:
    torch.manual_seed(0)
    manifold = geoopt.Stiefel()
    weight = geoopt.ManifoldParameter(manifold.random(8, 4), manifold=manifold)
    (torch.randn(3, 8) @ weight).square().mean().backward()
    return weight


def call_riemannian_adam_step():
    return geoopt.optim.RiemannianAdam([_stiefel_parameter()], lr=1e-2).step, (), {}


def call_riemannian_sgd_step():
    return geoopt.optim.RiemannianSGD([_stiefel_parameter()], lr=1e-2, momentum=0.9).step, (), {}


def call_poincare_expmap_dist():
    torch.manual_seed(0)
    ball = geoopt.PoincareBall(c=1.0)
    x = ball.projx(0.3 * torch.randn(5, 3))

    def expmap_then_dist(point: torch.Tensor, tangent: torch.Tensor) -> torch.Tensor:
        return ball.dist(point, ball.expmap(point, tangent))

    return expmap_then_dist, (x, 0.1 * torch.randn(5, 3)), {}


def call_sphere_retr():
    torch.manual_seed(0)
    sphere = geoopt.Sphere()
    x = sphere.projx(torch.randn(4, 6))
    return sphere.retr, (x, sphere.proju(x, torch.randn(4, 6))), {}
