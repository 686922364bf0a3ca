"""sbi: simulation-based inference (neural posterior, likelihood and score estimation).

Users compile the density estimators' training loss and their evaluation: the NPE loss of a
masked autoregressive flow, the log-density of a mixture density network, the denoising
score-matching loss of a score-based posterior, and the flow-matching loss, each built by sbi's
factories on a small batch of simulated parameters and observations.
"""

from __future__ import annotations

import torch
from sbi.neural_nets import posterior_flow_nn, posterior_nn, posterior_score_nn

DISTRIBUTION = "sbi"
PACKAGE = "sbi"
WHY = "probabilistic: simulation-based inference with flows, mixture density nets, score models"


def _data():
    torch.manual_seed(0)
    theta = torch.rand(64, 2) * 4 - 2
    x = theta + 0.1 * torch.randn(64, 2)
    return theta, x


def call_maf_loss():
    theta, x = _data()
    net = posterior_nn("maf", hidden_features=16, num_transforms=2)(theta, x)
    return net.loss, (theta[:8],), {"condition": x[:8]}


def call_mdn_log_prob():
    theta, x = _data()
    net = posterior_nn("mdn", hidden_features=16, num_components=3)(theta, x)
    return net.log_prob, (theta[:8].unsqueeze(0),), {"condition": x[:8]}


def call_score_loss():
    theta, x = _data()
    net = posterior_score_nn("mlp", hidden_features=16, num_layers=2)(theta, x)
    return net.loss, (theta[:8],), {"condition": x[:8]}


def call_flow_matching_loss():
    theta, x = _data()
    net = posterior_flow_nn("mlp", hidden_features=16, num_layers=2)(theta, x)
    return net.loss, (theta[:8],), {"condition": x[:8]}
