"""torchdiffeq: neural ODE solvers (Chen et al., NeurIPS 2018), the reference scientific-ML library.

Users compile `odeint` around a learned vector field: an adaptive solver (dopri5), a fixed-grid
solver (rk4), the adjoint method, and an event-terminated solve.
"""

from __future__ import annotations

import torch
import torchdiffeq
from torch import nn

DISTRIBUTION = "torchdiffeq"
PACKAGE = "torchdiffeq"
WHY = "scientific ML: neural ODEs (adaptive step-size control, adjoint, events); pure Python"


class VectorField(nn.Module):
    def __init__(self, dim: int = 4) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 16), nn.Tanh(), nn.Linear(16, dim))

    def forward(self, t, y):
        return self.net(y)


def call_dopri5():
    y0, t = torch.randn(8, 4), torch.linspace(0.0, 1.0, 5)
    return torchdiffeq.odeint, (VectorField(), y0, t), {"method": "dopri5", "rtol": 1e-3, "atol": 1e-4}


def call_rk4_fixed_grid():
    y0, t = torch.randn(8, 4), torch.linspace(0.0, 1.0, 5)
    return torchdiffeq.odeint, (VectorField(), y0, t), {"method": "rk4", "options": {"step_size": 0.1}}


def call_adjoint():
    y0, t = torch.randn(8, 4), torch.linspace(0.0, 1.0, 3)
    return torchdiffeq.odeint_adjoint, (VectorField(), y0, t), {"method": "dopri5", "rtol": 1e-3, "atol": 1e-4}


def call_event():
    def hits_zero(t, y):  # stop when the first coordinate's mean crosses zero
        return y[..., 0].mean() + 0.5

    y0, t0 = torch.randn(8, 4), torch.tensor(0.0)
    return torchdiffeq.odeint_event, (VectorField(), y0, t0), {"event_fn": hits_zero, "method": "dopri5"}


# -- calls written for the rewritten lines the benchmark's calls do not run (rewrite_check.py) --


class ODEBlock(nn.Module):
    """`odeint` over a learned vector field, as a neural-ODE layer: a Module, so the harness
    compares the gradients of the field's parameters as well as of the initial state."""

    def __init__(self, t, **solver):
        super().__init__()
        self.func = VectorField()
        self.t = t
        self.solver = solver

    def forward(self, y0):
        return torchdiffeq.odeint(self.func, y0, self.t, **self.solver)


def _state():
    return torch.randn(8, 4).requires_grad_()


def rewrite_call_dopri5_with_jump_and_step_times():
    """rk_common.py:_sort_tvals (given `@torch.compiler.disable`) and the eager arm of
    RKAdaptiveStepsizeODESolver._before_integrate's repeated-times check: only the `jump_t` and
    `step_t` options reach them, which no benchmark call passes."""
    options = {"jump_t": torch.tensor([0.35, 0.7]), "step_t": torch.tensor([0.1, 0.5])}
    block = ODEBlock(torch.linspace(0.0, 1.0, 5), method="dopri5", rtol=1e-3, atol=1e-4, options=options)
    return block, (_state(),), {}


def rewrite_call_dopri5_repeated_jump_and_step_times():
    """The same check's raising path: a time in both `jump_t` and `step_t` (ValueError before and
    after; the rewrite changed only the compiled arm)."""
    options = {"jump_t": torch.tensor([0.5]), "step_t": torch.tensor([0.5])}
    block = ODEBlock(torch.linspace(0.0, 1.0, 5), method="dopri5", options=options)
    return block, (_state(),), {}


def rewrite_call_dopri5_min_step():
    """RKAdaptiveStepsizeODESolver._adaptive_step's `if dt <= self.min_step: accept_step = True`
    (now `torch.where`) on its taken side: a `min_step` larger than the steps the error control
    picks forces acceptance. The benchmark's calls leave `min_step` at 0, where it never fires."""
    options = {"min_step": 0.3, "max_step": 0.4}
    block = ODEBlock(torch.linspace(0.0, 1.0, 3), method="dopri5", rtol=1e-6, atol=1e-8, options=options)
    return block, (_state(),), {}


def rewrite_call_dopri5_backward_in_time():
    """misc.py:_check_timelike's `diff.all() | (~diff).all()` (was `or`) and _assert_increasing on
    the flipped grid: a solve backward in time (decreasing `t`), as the adjoint method does."""
    block = ODEBlock(torch.linspace(1.0, 0.0, 4), method="dopri5", rtol=1e-3, atol=1e-4)
    return block, (_state(),), {}


def rewrite_call_non_monotone_times():
    """_check_timelike's raising path: `t` neither increasing nor decreasing. The lowered assert
    raises RuntimeError where the original raised AssertionError (the unsafe fix's stated change)."""
    block = ODEBlock(torch.tensor([0.0, 0.5, 0.2]), method="rk4", options={"step_size": 0.1})
    return block, (_state(),), {}


def rewrite_call_rk4_outputs_on_the_grid():
    """solvers.py:FixedGridODESolver._linear_interp's `t == t1` early return (now one nested
    `torch.where`): output times that fall on the solver's grid, with gradients through the
    selection. The benchmark's rk4 call has step 0.1, whose grid misses most output times."""
    block = ODEBlock(torch.linspace(0.0, 1.0, 5), method="rk4", options={"step_size": 0.25})
    return block, (_state(),), {}


def rewrite_call_dopri5_from_rest():
    """misc.py:_select_initial_step's `if d0 < 1e-5 or d1 < 1e-5:` arm: a zero initial state, with
    gradients. As torch.where this gave NaN gradients for `y0` (the unselected `0.01 * d0 / d1`
    through sqrt's backward at 0); the rewrite is now refused (rewrite/branches/degenerate_guards.py), so
    the function is no longer touched and this call guards against its return."""
    block = ODEBlock(torch.linspace(0.0, 1.0, 3), method="dopri5", rtol=1e-3, atol=1e-4)
    return block, (torch.zeros(8, 4).requires_grad_(),), {}
