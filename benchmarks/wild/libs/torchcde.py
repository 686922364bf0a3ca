"""torchcde: neural controlled differential equations (interpolation of irregular series + solver).

Users compile the CDE solve inside their model's forward.
"""

from __future__ import annotations

import torch
import torchcde

DISTRIBUTION = "torchcde"
PACKAGE = "torchcde"
WHY = "scientific ML / time series: neural CDEs over interpolated irregular observations"


class _Field(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(4, 4 * 3)

    def forward(self, t: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        return self.linear(z).tanh().view(z.shape[0], 4, 3)


def _path() -> torchcde.CubicSpline:
    x = torch.cat([torch.linspace(0, 1, 6).expand(2, 6).unsqueeze(-1), torch.randn(2, 6, 2)], dim=-1)
    return torchcde.CubicSpline(torchcde.hermite_cubic_coefficients_with_backward_differences(x))


def call_cdeint():
    path = _path()
    return torchcde.cdeint, (path, _Field(), torch.randn(2, 4), path.interval), {"method": "rk4", "options": {"step_size": 0.25}}


def call_spline_coefficients():
    x = torch.randn(2, 6, 3)
    return torchcde.hermite_cubic_coefficients_with_backward_differences, (x,), {}


def call_linear_interpolation_evaluate():
    x = torch.randn(2, 6, 3)
    path = torchcde.LinearInterpolation(torchcde.linear_interpolation_coeffs(x))
    return path.evaluate, (torch.tensor(2.5),), {}
