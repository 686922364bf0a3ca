"""torchode: parallel ODE solvers (each batch item its own step size), built for torch.compile.

Users compile the solver's `solve` (the library documents torch.compile support).
"""

from __future__ import annotations

import torch
import torchode as to

DISTRIBUTION = "torchode"
PACKAGE = "torchode"
WHY = "scientific ML: batched adaptive ODE solvers, advertised as compilable"


def _decay(t: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return -0.5 * y


def _solver(method: type) -> to.AutoDiffAdjoint:
    term = to.ODETerm(_decay)
    step = method(term=term)
    controller = to.IntegralController(atol=1e-6, rtol=1e-3, term=term)
    return to.AutoDiffAdjoint(step, controller)


def _problem() -> to.InitialValueProblem:
    return to.InitialValueProblem(y0=torch.randn(2, 3), t_eval=torch.linspace(0, 1, 4).expand(2, 4))


def call_dopri5():
    return _solver(to.Dopri5).solve, (_problem(),), {}


def call_tsit5():
    return _solver(to.Tsit5).solve, (_problem(),), {}
