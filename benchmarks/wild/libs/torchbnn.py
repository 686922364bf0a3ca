"""torchbnn: Bayesian versions of PyTorch layers (Adv-BNN style) and their KL loss.

Users compile the Bayesian network's forward and the training loss of the library's Iris demo:
cross-entropy plus a weighted `BKLLoss` over the model's Bayesian layers; and a Bayesian CNN
(BayesConv2d + BayesBatchNorm2d) forward.
"""

from __future__ import annotations

import torch
import torchbnn as bnn
from torch import nn

DISTRIBUTION = "torchbnn"
PACKAGE = "torchbnn"
WHY = "Bayesian deep learning: weight-sampling linear, conv and batch-norm layers, KL loss"


def _iris_model() -> nn.Module:  # the Iris demo's two-layer network
    torch.manual_seed(0)
    return nn.Sequential(
        bnn.BayesLinear(prior_mu=0, prior_sigma=0.1, in_features=4, out_features=100),
        nn.ReLU(),
        bnn.BayesLinear(prior_mu=0, prior_sigma=0.1, in_features=100, out_features=3),
    )


def call_iris_forward():
    return _iris_model(), (torch.randn(16, 4),), {}


def call_iris_loss():
    model, ce_loss, kl_loss = _iris_model(), nn.CrossEntropyLoss(), bnn.BKLLoss(reduction="mean")

    def loss(x, y):  # the demo's cost = ce + kl_weight * kl
        return ce_loss(model(x), y) + 0.01 * kl_loss(model)

    return loss, (torch.randn(16, 4), torch.randint(0, 3, (16,))), {}


def call_bayes_cnn_forward():
    torch.manual_seed(0)
    model = nn.Sequential(
        bnn.BayesConv2d(prior_mu=0, prior_sigma=0.1, in_channels=3, out_channels=8, kernel_size=3, stride=1),
        bnn.BayesBatchNorm2d(prior_mu=0, prior_sigma=0.1, num_features=8),
        nn.ReLU(),
    )
    return model.eval(), (torch.randn(2, 3, 16, 16),), {}
