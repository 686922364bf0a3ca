"""pytorch-tcn: temporal convolutional networks (Bai et al. 2018) for sequences and time series.

Users compile the TCN's forward: a causal TCN on (N, C, L) sequences, a non-causal one with skip
connections, gating and an output projection on (N, L, C) input, and the causal network's streaming
`inference` on one block of a stream (internal buffers carry the past).
"""

from __future__ import annotations

import torch
from pytorch_tcn import TCN

DISTRIBUTION = "pytorch-tcn"
PACKAGE = "pytorch_tcn"
WHY = "time series / sequence models: temporal convolutional networks with streaming inference"


def _tcn(**kwargs) -> TCN:
    torch.manual_seed(0)
    return TCN(num_inputs=3, num_channels=[8, 8, 8], kernel_size=3, dropout=0.0, **kwargs).eval()


def _series(*shape: int) -> torch.Tensor:
    torch.manual_seed(1)
    return torch.randn(*shape)


def call_causal_tcn():
    return _tcn(), (_series(2, 3, 32),), {}


def call_skip_gated_projected():
    model = _tcn(causal=False, use_skip_connections=True, use_gate=True, input_shape="NLC",
                 output_projection=1, use_norm="layer_norm")
    return model, (_series(2, 32, 3),), {}


def call_streaming_inference():
    model = _tcn()
    return model.inference, (_series(1, 3, 4),), {}
