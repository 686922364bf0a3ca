"""TensorLy-Torch (tensorly-torch): low-rank tensor factorized layers for model compression.

Users compress a network by replacing dense layers with factorized ones and compile its forward:
a linear layer with tensorized features in block Tensor-Train form, a convolution in CP form run
factorized (no weight reconstruction), a Tucker tensor regression layer, and a small network
whose CP tensor regression layer carries tensor dropout (a forward hook on its factors).
"""

from __future__ import annotations

import tltorch
import torch
from torch import nn

DISTRIBUTION = "tensorly-torch"
PACKAGE = "tltorch"
WHY = "model compression: low-rank (CP, Tucker, TT) factorized layers, tensor dropout and lasso"


def call_tt_linear():
    torch.manual_seed(0)
    layer = tltorch.FactorizedLinear((4, 4, 2), (2, 4, 4), factorization="blocktt", rank=0.5)
    return layer, (torch.randn(8, 32),), {}


def call_cp_conv_factorized():
    torch.manual_seed(0)
    layer = tltorch.FactorizedConv(4, 8, kernel_size=3, order=2, factorization="cp", rank=0.5,
                                   implementation="factorized", padding=1)
    return layer, (torch.randn(2, 4, 8, 8),), {}


def call_tucker_trl():
    torch.manual_seed(0)
    layer = tltorch.TRL((4, 3, 3), (5,), factorization="tucker", rank=0.5)
    return layer, (torch.randn(2, 4, 3, 3),), {}


def call_tensor_dropout_trl():
    torch.manual_seed(0)
    trl = tltorch.TRL((4, 3, 3), (6,), factorization="cp", rank=0.5)
    trl.weight = tltorch.tensor_dropout(trl.weight, p=0.3)
    model = nn.Sequential(trl, nn.ReLU(), nn.Linear(6, 2)).train()
    return model, (torch.randn(2, 4, 3, 3),), {}
