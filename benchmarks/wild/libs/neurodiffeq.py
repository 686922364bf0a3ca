"""neurodiffeq (NeuroDiffGym): physics-informed networks that solve ODEs and PDEs.

Users compile the network and the residual their training loss is built from: the condition's
re-parameterization of the network (`enforce`, what `Solver.compute_func_val` runs) and the
library's autograd operators (`diff`, `laplacian`) on it. The calls: a sine-activated network's
forward, an initial value problem's residual (exponential decay), a Dirichlet problem's Laplace
residual on the unit square, and the solution object a solver hands back evaluated on new points.
"""

from __future__ import annotations

import torch
from neurodiffeq import diff
from neurodiffeq.conditions import IVP, DirichletBVP2D
from neurodiffeq.networks import FCNN, SinActv
from neurodiffeq.operators import laplacian
from neurodiffeq.solvers import Solver1D

DISTRIBUTION = "neurodiffeq"
PACKAGE = "neurodiffeq"
WHY = "physics-informed networks: ODE/PDE residuals from re-parameterized networks and autograd operators"


def _net(n_input_units: int = 1) -> FCNN:
    torch.manual_seed(0)
    return FCNN(n_input_units=n_input_units, n_output_units=1, hidden_units=(16, 16), actv=SinActv)


def _points(n: int = 32) -> torch.Tensor:
    torch.manual_seed(1)
    return torch.rand(n, 1, requires_grad=True)


def call_fcnn_forward():
    return _net(), (_points().detach(),), {}


def call_ivp_residual():
    net, condition = _net(), IVP(t_0=0.0, u_0=1.0)

    def residual(t):  # du/dt + u = 0, as a solver's loss computes it (with grad on)
        with torch.enable_grad():
            u = condition.enforce(net, t)
            return diff(u, t) + u

    return residual, (_points(),), {}


def call_laplace_residual():
    net = _net(n_input_units=2)
    condition = DirichletBVP2D(
        x_min=0.0, x_min_val=lambda y: torch.sin(torch.pi * y),
        x_max=1.0, x_max_val=lambda y: torch.zeros_like(y),
        y_min=0.0, y_min_val=lambda x: torch.zeros_like(x),
        y_max=1.0, y_max_val=lambda x: torch.zeros_like(x),
    )  # fmt: skip

    def residual(x, y):  # Laplace's equation on the unit square
        with torch.enable_grad():
            u = condition.enforce(net, x, y)
            return laplacian(u, x, y)

    torch.manual_seed(2)
    return residual, (_points(), torch.rand(32, 1, requires_grad=True)), {}


def call_solver_solution():
    solver = Solver1D(
        ode_system=lambda u, t: [diff(u, t) + u],
        conditions=[IVP(t_0=0.0, u_0=1.0)],
        t_min=0.0,
        t_max=2.0,
        nets=[_net()],
    )
    solution = solver.get_solution(best=False)  # the nets as they are (no training here)
    return solution, (torch.linspace(0.0, 2.0, 16),), {}
