"""pytorch-mppi: Model Predictive Path Integral control (MPPI and its smooth/kernel variants).

A controller is not an nn.Module: each control step users call (and compile) `command(state)`,
which samples perturbed action sequences, rolls them through the user's dynamics and cost, and
returns the weighted action. The calls run MPPI, SMPPI (smoothed action deltas) and KMPPI (kernel
interpolation between support points) on a pendulum swing-up, plus `get_rollouts` of the plan.
"""

from __future__ import annotations

import math

import torch
from pytorch_mppi import KMPPI, MPPI, SMPPI

DISTRIBUTION = "pytorch-mppi"
PACKAGE = "pytorch_mppi"
WHY = "control: sampling-based model predictive control (MPPI planners)"

_DT, _G, _M, _L = 0.05, 10.0, 1.0, 1.0


def _pendulum(state: torch.Tensor, action: torch.Tensor) -> torch.Tensor:
    th, thdot = state[:, 0:1], state[:, 1:2]
    u = torch.clamp(action[:, 0:1], -2.0, 2.0)
    newthdot = thdot + (-3 * _G / (2 * _L) * torch.sin(th + math.pi) + 3.0 / (_M * _L**2) * u) * _DT
    newth = th + newthdot * _DT
    return torch.cat((newth, torch.clamp(newthdot, -8.0, 8.0)), dim=1)


def _cost(state: torch.Tensor, action: torch.Tensor) -> torch.Tensor:
    theta = torch.remainder(state[:, 0] + math.pi, 2 * math.pi) - math.pi
    return theta**2 + 0.1 * state[:, 1] ** 2 + 0.001 * action[:, 0] ** 2


def _kwargs() -> dict:
    torch.manual_seed(0)
    return dict(nx=2, noise_sigma=torch.eye(1), num_samples=64, horizon=8, lambda_=1.0,
                u_min=torch.tensor([-2.0]), u_max=torch.tensor([2.0]))  # fmt: skip


def _state() -> torch.Tensor:
    return torch.tensor([math.pi / 2, 0.0])


def call_mppi_command():
    ctrl = MPPI(_pendulum, _cost, **_kwargs())
    return ctrl.command, (_state(),), {}


def call_smppi_command():
    ctrl = SMPPI(_pendulum, _cost, **_kwargs(), w_action_seq_cost=1.0,
                 action_min=torch.tensor([-1.0]), action_max=torch.tensor([1.0]))  # fmt: skip
    return ctrl.command, (_state(),), {}


def call_kmppi_command():
    ctrl = KMPPI(_pendulum, _cost, **_kwargs(), num_support_pts=4)
    return ctrl.command, (_state(),), {}


def call_mppi_rollouts():
    ctrl = MPPI(_pendulum, _cost, **_kwargs())
    return ctrl.get_rollouts, (_state(),), {"num_rollouts": 3}
