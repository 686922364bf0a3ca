"""torchdyn: neural differential equations (neural ODEs/SDEs, CNFs, multiple shooting).

Users build a `NeuralODE` around their vector-field network and compile its forward (the ODE solve
with torchdyn's own adaptive or fixed-step solvers) inside a training step; the functional
`torchdyn.numerics.odeint` is compiled directly around a vector field, and continuous normalizing
flows (`CNF`) are trained by compiling the augmented NeuralODE that carries the Jacobian trace.
"""

from __future__ import annotations

import torch
import torch.nn as nn
from torchdyn.core import MultipleShootingLayer, NeuralODE
from torchdyn.models import CNF
from torchdyn.nn import Augmenter
from torchdyn.numerics import odeint

DISTRIBUTION = "torchdyn"
PACKAGE = "torchdyn"
WHY = (
    "scientific ML: neural ODEs with its own solvers (adaptive step control), CNFs, parallel-in-time shooting"
)


def _net(dim: int = 2, hidden: int = 16) -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(dim, hidden), nn.Tanh(), nn.Linear(hidden, dim))


def call_neural_ode_tsit5():
    # The README's model: adaptive Tsitouras 5(4) with autograd sensitivity.
    model = NeuralODE(_net(), solver="tsit5", sensitivity="autograd", atol=1e-3, rtol=1e-3)
    return model, (torch.randn(8, 2), torch.linspace(0, 1, 5)), {}


def call_neural_ode_adjoint_rk4():
    # Fixed-step RK4, gradients by the adjoint method (a custom autograd.Function).
    model = NeuralODE(_net(), solver="rk4", sensitivity="adjoint", return_t_eval=False)
    return model, (torch.randn(8, 2), torch.linspace(0, 1, 6)), {}


def call_odeint_dopri5():
    vector_field = _net()

    def solve(x, t_span):
        return odeint(lambda t, x: vector_field(x), x, t_span, solver="dopri5", atol=1e-4, rtol=1e-4)

    return solve, (torch.randn(8, 2), torch.linspace(0, 1, 4)), {}


def call_cnf_log_likelihood():
    # CNF training loss: augment the state with a log-density channel, integrate, Gaussian prior.
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(2, 16), nn.Softplus(), nn.Linear(16, 2))
    cnf = NeuralODE(
        CNF(net), solver="dopri5", sensitivity="autograd", atol=1e-4, rtol=1e-4, return_t_eval=False
    )
    model = nn.Sequential(Augmenter(augment_idx=1, augment_dims=1), cnf)
    prior = torch.distributions.MultivariateNormal(torch.zeros(2), torch.eye(2))

    def nll(x):
        z = model(x)[-1]
        return -(prior.log_prob(z[:, 1:]) - z[:, 0]).mean()

    return nll, (torch.randn(8, 2),), {}


def call_multiple_shooting():
    model = MultipleShootingLayer(_net(), solver="zero", maxiter=2, fine_steps=2)
    return model, (torch.randn(8, 2), torch.linspace(0, 1, 5)), {}
