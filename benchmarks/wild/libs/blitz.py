"""BLiTZ (blitz-bayesian-pytorch): Bayesian layers trained by variational inference (Bayes by Backprop).

Users compile the Bayesian network's forward (each call samples its weights) and the ELBO loss the
`@variational_estimator` decorator adds to their model (`sample_elbo`: Monte-Carlo forwards plus
the layers' KL divergence), as in the library's README regression example.
"""

from __future__ import annotations

import torch
from blitz.modules import BayesianConv2d, BayesianLinear, BayesianLSTM
from blitz.utils import variational_estimator
from torch import nn

DISTRIBUTION = "blitz-bayesian-pytorch"
PACKAGE = "blitz"
WHY = "Bayesian deep learning: weight-sampling layers (linear, conv, LSTM) and the ELBO loss"


@variational_estimator
class BayesianRegressor(nn.Module):  # the README's regressor
    def __init__(self, input_dim: int = 8, output_dim: int = 1) -> None:
        super().__init__()
        self.blinear1 = BayesianLinear(input_dim, 32)
        self.blinear2 = BayesianLinear(32, output_dim)

    def forward(self, x):
        return self.blinear2(torch.relu(self.blinear1(x)))


@variational_estimator
class BayesianSequenceModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lstm = BayesianLSTM(4, 16)
        self.head = nn.Linear(16, 1)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1, :])


def _regressor() -> BayesianRegressor:
    torch.manual_seed(0)
    return BayesianRegressor()


def call_regressor_forward():
    return _regressor(), (torch.randn(16, 8),), {}


def call_sample_elbo():
    model = _regressor()
    return model.sample_elbo, (torch.randn(16, 8), torch.randn(16, 1), nn.MSELoss(), 3), {}


def call_conv_forward():
    torch.manual_seed(0)
    return BayesianConv2d(3, 8, (3, 3)), (torch.randn(2, 3, 16, 16),), {}


def call_lstm_forward():
    torch.manual_seed(0)
    return BayesianSequenceModel(), (torch.randn(4, 5, 4),), {}
