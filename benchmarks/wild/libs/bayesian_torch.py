"""Bayesian-Torch (Intel Labs): Bayesian layers (reparameterization, flipout) and dnn_to_bnn conversion.

Users convert a deterministic network with `dnn_to_bnn` and compile its forward plus the training
loss of the README's snippet (cross-entropy plus `get_kl_loss / batch`), build models from the
Bayesian layers (the library's Bayesian ResNet-20), and train with its accuracy-versus-uncertainty
loss (AvULoss).
"""

from __future__ import annotations

import torch
from bayesian_torch.models.bayesian.resnet_variational import resnet20
from bayesian_torch.models.dnn_to_bnn import dnn_to_bnn, get_kl_loss
from bayesian_torch.utils.avuc_loss import AvULoss
from torch import nn

DISTRIBUTION = "bayesian-torch"
PACKAGE = "bayesian_torch"
WHY = "Bayesian deep learning: variational/flipout layers, DNN-to-BNN conversion, calibration loss"


def _prior(kind: str) -> dict:  # the README's const_bnn_prior_parameters
    return {"prior_mu": 0.0, "prior_sigma": 1.0, "posterior_mu_init": 0.0, "posterior_rho_init": -3.0,
            "type": kind, "moped_enable": False, "moped_delta": 0.5}  # fmt: skip


def _cnn(kind: str) -> nn.Module:
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(4), nn.Flatten(), nn.Linear(128, 10)
    )
    dnn_to_bnn(model, _prior(kind))
    return model


def call_reparameterization_cnn_loss():
    model, criterion = _cnn("Reparameterization"), nn.CrossEntropyLoss()

    def loss(x, y):  # the README's training snippet, up to backward
        return criterion(model(x), y) + get_kl_loss(model) / x.shape[0]

    return loss, (torch.randn(4, 3, 16, 16), torch.randint(0, 10, (4,))), {}


def call_flipout_cnn_forward():
    return _cnn("Flipout"), (torch.randn(4, 3, 16, 16),), {}


def call_resnet20_variational_forward():
    torch.manual_seed(0)
    return resnet20(), (torch.randn(2, 3, 32, 32),), {}


def call_avu_loss():
    torch.manual_seed(0)
    return AvULoss(), (torch.randn(8, 10), torch.randint(0, 10, (8,)), 0.5), {}
