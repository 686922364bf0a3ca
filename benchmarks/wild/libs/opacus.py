"""Opacus (Meta): training with differential privacy (DP-SGD) through per-sample gradients.

Users compile the private model's forward and their training step: Opacus wraps the model in a
`GradSampleModule` whose hooks capture activations in forward and compute per-sample gradients in
backward, and its `DPOptimizer` clips them per sample, adds noise and steps. The calls: the
library's DP-ready LSTM and multi-head attention layers, a wrapped model's forward with grad on
(the hooks record activations), and the private optimizer's step from `PrivacyEngine.make_private`
on the per-sample gradients a backward left (clipping, noise, the wrapped SGD step).
"""

from __future__ import annotations

import torch
from opacus import GradSampleModule, PrivacyEngine
from opacus.layers import DPLSTM, DPMultiheadAttention
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

DISTRIBUTION = "opacus"
PACKAGE = "opacus"
WHY = "privacy: DP-SGD per-sample gradients, clipping and noise, DP-ready layers"


def _classifier() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.LayerNorm(16), nn.Linear(16, 3))


def call_dp_lstm():
    torch.manual_seed(0)
    return DPLSTM(input_size=8, hidden_size=16, num_layers=2, batch_first=True), (torch.randn(4, 5, 8),), {}


def call_dp_multihead_attention():
    torch.manual_seed(0)
    attention = DPMultiheadAttention(embed_dim=16, num_heads=2)
    x = torch.randn(6, 2, 16)  # (sequence, batch, features), as torch's default layout
    return attention, (x, x, x), {}


def call_grad_sample_forward():
    model = GradSampleModule(_classifier())

    def forward(x):  # training-time forward: the hooks capture activations only with grad on
        with torch.enable_grad():
            return model(x)

    return forward, (torch.randn(4, 8),), {}


def call_dp_optimizer_step():
    model = _classifier()
    data = TensorDataset(torch.randn(16, 8), torch.randint(0, 3, (16,)))
    model, optimizer, _ = PrivacyEngine().make_private(
        module=model,
        optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
        data_loader=DataLoader(data, batch_size=4),
        noise_multiplier=1.0,
        max_grad_norm=1.0,
    )
    params = [p for p in model.parameters() if p.requires_grad]
    with torch.enable_grad():  # one eager backward: the per-sample gradients the step consumes
        nn.CrossEntropyLoss()(model(torch.randn(4, 8)), torch.randint(0, 3, (4,))).backward()
    grad_samples = [p.grad_sample.clone() for p in params]
    optimizer.zero_grad()

    def dp_step(grad_samples):  # compiled apart from backward (Dynamo fails on the backward hooks:
        # TorchRuntimeError at `del p._current_grad_sample`, measured): clip per sample, noise, step
        for p, g in zip(params, grad_samples):
            p.grad_sample = g.clone()  # the step marks what it consumed as processed
        optimizer.step()
        optimizer.zero_grad()
        return params

    return dp_step, (grad_samples,), {}
