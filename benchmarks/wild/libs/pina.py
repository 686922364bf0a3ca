"""PINA (pina-mathlab): physics-informed neural networks and neural operators.

Users compile the library's networks (a Fourier neural operator on a 1-d field, a DeepONet over
branch and trunk coordinates, a Kolmogorov-Arnold network) and the residual of a PDE computed
with its differential operators on labelled collocation points (`LabelTensor`), the loss a
physics-informed solver minimises.
"""

from __future__ import annotations

import torch
from pina import LabelTensor
from pina.model import FNO, DeepONet, FeedForward, KolmogorovArnoldNetwork
from pina.operator import laplacian

DISTRIBUTION = "pina-mathlab"
PACKAGE = "pina"
WHY = "scientific ML: physics-informed networks, neural operators and their autograd PDE operators"


def call_fno_1d():
    torch.manual_seed(0)
    lifting = torch.nn.Linear(2, 16)
    projecting = torch.nn.Linear(16, 1)
    model = FNO(lifting, projecting, n_modes=4, dimensions=1, padding=2, inner_size=16, n_layers=2)
    return model, (torch.randn(3, 32, 2),), {}


def call_deeponet():
    torch.manual_seed(0)
    branch = FeedForward(input_dimensions=2, output_dimensions=8, inner_size=16)
    trunk = FeedForward(input_dimensions=1, output_dimensions=8, inner_size=16)
    model = DeepONet(branch, trunk, input_indeces_branch_net=[0, 1], input_indeces_trunk_net=[2])
    return model, (torch.randn(10, 3),), {}


def call_kan():
    torch.manual_seed(0)
    return KolmogorovArnoldNetwork([2, 8, 1], n_knots=6), (torch.rand(16, 2) * 2 - 1,), {}


def call_poisson_residual():
    torch.manual_seed(0)
    model = FeedForward(input_dimensions=2, output_dimensions=1, inner_size=16)

    def residual(points: LabelTensor) -> torch.Tensor:
        # A physics-informed loss: -lap(u) = f on the collocation points (grad on, as in training).
        with torch.enable_grad():
            points = points.requires_grad_()
            u = LabelTensor(model(points), ["u"])
            lap = laplacian(u, points, components=["u"], d=["x", "y"])
            force = torch.sin(torch.pi * points.extract(["x"])) * torch.sin(torch.pi * points.extract(["y"]))
            return (lap + force).pow(2).mean()

    return residual, (LabelTensor(torch.rand(32, 2), ["x", "y"]),), {}
