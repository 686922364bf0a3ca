"""pypose: differentiable robotics on Lie groups (LieTensor SE3/SO3, IMU preintegration, filters,
second-order optimizers).

Users compile pose arithmetic on LieTensors and the filter modules, as the library's docs show
them. The IMU preintegrator's forward and the second-order optimizers' step (LM, GN) are not among
the calls: under torch.compile on torch 2.13 they raise RecursionError (LieTensor.__torch_function__
re-entered without end), so Dynamo reports no break to measure.
"""

from __future__ import annotations

import pypose as pp
import torch

DISTRIBUTION = "pypose"
PACKAGE = "pypose"
WHY = "robotics: Lie-group poses, Kalman filters (EKF, UKF)"


class _NLS(pp.module.NLS):
    """The non-linear system of EKF's docstring."""

    def state_transition(
        self, state: torch.Tensor, input: torch.Tensor, t: torch.Tensor | None = None
    ) -> torch.Tensor:
        return state.cos() + input

    def observation(
        self, state: torch.Tensor, input: torch.Tensor, t: torch.Tensor | None = None
    ) -> torch.Tensor:
        return state.sin() + input


def call_se3_act_points():
    torch.manual_seed(0)
    return pp.randn_SE3(8).Act, (torch.randn(8, 3),), {}


def call_so3_exp():
    torch.manual_seed(0)
    return pp.randn_so3(8).Exp, (), {}


def _filter_step(filter_class: type) -> tuple:
    """One step of a filter on the docs' system: estimate, observation, input, covariance, Q, R."""
    torch.manual_seed(0)
    n = 2
    covariances = (torch.eye(n) * 100.0, torch.eye(n) * 0.01, torch.eye(n) * 0.01)
    return filter_class(_NLS()), (torch.randn(n), torch.zeros(n), torch.randn(n), *covariances), {}


def call_ekf_step():
    return _filter_step(pp.module.EKF)


def call_ukf_step():
    return _filter_step(pp.module.UKF)
