"""optimum-quanto: Hugging Face's PyTorch quantization backend (weights and activations).

Users quantize a model in place (`quantize`), optionally calibrate its activation scales, then
compile the quantized model's forward: int8 weights on an MLP (dynamic, not frozen), frozen int4
weights with int8 activations after calibration, float8 weights on a small CNN, and a frozen
int8 MLP whose weights are packed `QTensor`s.
"""

from __future__ import annotations

import torch
from optimum.quanto import Calibration, freeze, qfloat8, qint4, qint8, quantize
from torch import nn

DISTRIBUTION = "optimum-quanto"
PACKAGE = "optimum.quanto"
WHY = "model compression: weight and activation quantization (int8, int4, float8) of nn layers"


def _mlp() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8)).eval()


def call_int8_weights():
    model = _mlp()
    quantize(model, weights=qint8)
    return model, (torch.randn(4, 16),), {}


def call_int4_weights_int8_activations_frozen():
    model = _mlp()
    quantize(model, weights=qint4, activations=qint8)
    with torch.no_grad(), Calibration():
        model(torch.randn(16, 16))
    freeze(model)
    return model, (torch.randn(4, 16),), {}


def call_float8_cnn():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 4, 3)).eval()
    quantize(model, weights=qfloat8)
    return model, (torch.randn(2, 3, 8, 8),), {}


def call_int8_frozen():
    model = _mlp()
    quantize(model, weights=qint8)
    freeze(model)
    return model, (torch.randn(4, 16),), {}
