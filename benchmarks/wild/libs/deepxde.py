"""DeepXDE: physics-informed neural networks and neural operators (PINNs, DeepONet).

Users compile the network's forward and the PDE residual their loss is built on: the network's
output differentiated with respect to its input through `dde.grad.jacobian`/`hessian`.
"""

from __future__ import annotations

import os

os.environ.setdefault("DDE_BACKEND", "pytorch")  # deepxde picks its backend at import

import deepxde as dde
import torch

DISTRIBUTION = "deepxde"
PACKAGE = "deepxde"
WHY = "scientific ML: physics-informed networks (autograd PDE residuals) and DeepONet operators"


def _fnn():
    torch.manual_seed(0)
    return dde.nn.FNN([2] + [20] * 3 + [1], "tanh", "Glorot normal")


def call_fnn_forward():
    return _fnn(), (torch.rand(32, 2),), {}


def call_heat_residual():
    net = _fnn()

    def residual(x):  # x = (position, time): u_t - 0.4 u_xx, the heat equation's PINN residual
        # It differentiates the network in its input, so grad is on even where the caller runs
        # under no_grad (as Model.predict(operator=...) does, and as the benchmark's truth runs).
        with torch.enable_grad():
            y = net(x)
            dy_t = dde.grad.jacobian(y, x, i=0, j=1)
            dy_xx = dde.grad.hessian(y, x, i=0, j=0)
            return dy_t - 0.4 * dy_xx

    return residual, (torch.rand(32, 2, requires_grad=True),), {}


def call_deeponet_cartesian_forward():
    torch.manual_seed(0)
    net = dde.nn.DeepONetCartesianProd([10, 32, 32], [1, 32, 32], "relu", "Glorot normal")
    return net, ((torch.rand(8, 10), torch.rand(20, 1)),), {}


def call_pfnn_forward():
    torch.manual_seed(0)
    net = dde.nn.PFNN([2, [16, 16], [16, 16], 2], "tanh", "Glorot uniform")
    return net, (torch.rand(32, 2),), {}
