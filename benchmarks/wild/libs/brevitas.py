"""brevitas (AMD/Xilinx): quantization-aware training with quantized layers and quant tensors.

Users compile their quantized network's forward: brevitas layers in place of torch.nn ones,
quantizing weights, activations and biases (fake quantization with learned or statistics-driven
scales), with `QuantTensor`s flowing between layers. The calls: a small quantized CNN (4-bit
weights, 8-bit activations, quant tensors between layers), a quantized LSTM, quantized multi-head
attention, and a quantized linear layer with per-channel weight scales and 8-bit input quantization
in eval mode.
"""

from __future__ import annotations

import torch
from brevitas import nn as qnn
from brevitas.quant import Int8ActPerTensorFloat, Int8WeightPerChannelFloat, Int32Bias
from torch import nn

DISTRIBUTION = "brevitas"
PACKAGE = "brevitas"
WHY = "efficiency: quantization-aware layers (fake-quantized weights and activations, quant tensors)"


def call_quant_cnn():
    torch.manual_seed(0)
    model = nn.Sequential(
        qnn.QuantIdentity(bit_width=8, return_quant_tensor=True),
        qnn.QuantConv2d(3, 8, kernel_size=3, weight_bit_width=4, bias_quant=Int32Bias, return_quant_tensor=True),
        qnn.QuantReLU(bit_width=8, return_quant_tensor=True),
        qnn.QuantConv2d(8, 8, kernel_size=3, stride=2, weight_bit_width=4),
        nn.Flatten(),
        qnn.QuantLinear(8 * 2 * 2, 10, bias=True, weight_bit_width=4),
    )
    return model, (torch.randn(2, 3, 8, 8),), {}


def call_quant_lstm():
    torch.manual_seed(0)
    lstm = qnn.QuantLSTM(input_size=8, hidden_size=16, batch_first=True)
    return lstm, (torch.randn(2, 5, 8),), {}


def call_quant_multihead_attention():
    torch.manual_seed(0)
    attention = qnn.QuantMultiheadAttention(embed_dim=16, num_heads=2, batch_first=True)
    x = torch.randn(2, 6, 16)
    return attention, (x, x, x), {"need_weights": False}


def call_quant_linear_per_channel_eval():
    torch.manual_seed(0)
    layer = qnn.QuantLinear(
        16, 8, bias=True, weight_quant=Int8WeightPerChannelFloat, input_quant=Int8ActPerTensorFloat,
        bias_quant=Int32Bias,
    )  # fmt: skip
    layer(torch.randn(4, 16))  # calibrate the input scale once, as a user's calibration pass does
    layer.eval()
    return layer, (torch.randn(4, 16),), {}
