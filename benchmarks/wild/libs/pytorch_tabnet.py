"""pytorch-tabnet: TabNet (attentive feature selection with sparsemax) for tabular data.

Users compile the network's forward (the sklearn-style wrapper trains it).
"""

from __future__ import annotations

import torch
from pytorch_tabnet.tab_network import TabNet

DISTRIBUTION = "pytorch-tabnet"
PACKAGE = "pytorch_tabnet"
WHY = "tabular: TabNet, sequential attention with sparsemax/entmax masks"


def call_tabnet_sparsemax():
    model = TabNet(input_dim=8, output_dim=2, n_d=8, n_a=8, n_steps=2, group_attention_matrix=torch.eye(8)).eval()
    return model, (torch.randn(16, 8),), {}


def call_tabnet_entmax():
    model = TabNet(input_dim=8, output_dim=2, n_d=8, n_a=8, n_steps=2, mask_type="entmax", group_attention_matrix=torch.eye(8))
    return model.eval(), (torch.randn(16, 8),), {}
