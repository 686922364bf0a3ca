"""Opacus (Meta): training with differential privacy (DP-SGD) through per-sample gradients.

Users compile the private model's forward and their training step: Opacus wraps the model in a
`GradSampleModule` whose hooks capture activations in forward and compute per-sample gradients in
backward, and its `DPOptimizer` clips them per sample, adds noise and steps. The calls: the
library's DP-ready LSTM and multi-head attention layers, a wrapped model's forward with grad on
(the hooks record activations), and a whole private training step from `PrivacyEngine.make_private`.
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


def call_private_training_step():
    model = _classifier()
    data = TensorDataset(torch.randn(16, 8), torch.randint(0, 3, (16,)))
    model, optimizer, _ = PrivacyEngine().make_private(
        module=model,
        optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
        data_loader=DataLoader(data, batch_size=4),
        noise_multiplier=1.0,
        max_grad_norm=1.0,
    )
    criterion = nn.CrossEntropyLoss()

    def train_step(x, y):  # per-sample gradients, clipped and noised, then the step
        with torch.enable_grad():
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            return loss

    return train_step, (torch.randn(4, 8), torch.randint(0, 3, (4,))), {}
