"""xitorch: differentiable scientific computing (linear solves, eigensolvers, rootfinding, ODEs).

Users compile the functional solvers around their own tensors and functions: an iterative
linear solve on a dense LinearOperator, a rootfinder on a nonlinear function with tensor
parameters, an initial value problem with a fixed-step Runge-Kutta scheme, and a partial
symmetric eigendecomposition.
"""

from __future__ import annotations

import torch
import xitorch
from xitorch.integrate import solve_ivp
from xitorch.linalg import solve, symeig
from xitorch.optimize import rootfinder

DISTRIBUTION = "xitorch"
PACKAGE = "xitorch"
WHY = "scientific ML and solvers: differentiable linear solves, eigensolvers, rootfinders, ODEs"


def _spd(n: int = 6) -> torch.Tensor:
    torch.manual_seed(0)
    a = torch.randn(n, n, dtype=torch.float64)
    return a @ a.T + n * torch.eye(n, dtype=torch.float64)


def call_linalg_solve():
    def solve_spd(mat, rhs):
        return solve(xitorch.LinearOperator.m(mat, is_hermitian=True), rhs)

    return solve_spd, (_spd(), torch.randn(6, 2, dtype=torch.float64)), {}


def call_rootfinder():
    def residual(y, a, b):
        return torch.tanh(a @ y) + b - y

    a = _spd() / 20
    return rootfinder, (residual, torch.zeros(6, 1, dtype=torch.float64)), {
        "params": (a, torch.randn(6, 1, dtype=torch.float64)),
    }


def call_solve_ivp_rk4():
    def decay(t, y, k):
        return -k * y

    ts = torch.linspace(0.0, 1.0, 5, dtype=torch.float64)
    y0 = torch.randn(3, dtype=torch.float64)
    return solve_ivp, (decay, ts, y0), {"params": (torch.tensor(0.7, dtype=torch.float64),), "method": "rk4"}


def call_symeig_lowest():
    def lowest(mat):
        return symeig(xitorch.LinearOperator.m(mat, is_hermitian=True), neig=2, mode="lowest")

    return lowest, (_spd(),), {}
