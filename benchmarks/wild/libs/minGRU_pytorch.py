"""minGRU-pytorch: minimal GRU/LSTM recurrences trained in parallel by a log-space scan (Feng et al. 2024).

Users compile the minGRU layer in parallel mode over a sequence, the minLM language model's
training loss (with the minLSTM and causal depthwise-convolution variant), and the recurrent
decoding step that feeds back the previous hidden states.
"""

from __future__ import annotations

import torch
from minGRU_pytorch import minGRU
from minGRU_pytorch.minLM import minLM

DISTRIBUTION = "minGRU-pytorch"
PACKAGE = "minGRU_pytorch"
WHY = "sequence models: parallel-scan minimal RNNs (minGRU, minLSTM) and their language model"


def _tokens(*shape: int) -> torch.Tensor:
    torch.manual_seed(1)
    return torch.randint(0, 64, shape)


def call_mingru_parallel():
    torch.manual_seed(0)
    return minGRU(16, expansion_factor=1.5), (torch.randn(2, 12, 16),), {}


def call_minlm_lstm_conv_loss():
    torch.manual_seed(0)
    model = minLM(num_tokens=64, dim=16, depth=2, use_lstm=True, enable_conv=True).eval()
    return model, (_tokens(2, 12),), {"return_loss": True}


def call_minlm_recurrent_step():
    torch.manual_seed(0)
    model = minLM(num_tokens=64, dim=16, depth=2).eval()
    with torch.no_grad():
        _, hiddens = model(_tokens(2, 8), return_prev_hiddens=True)

    def step(tokens, prev_hiddens):  # one decoding step: the last token and the carried hiddens
        return model(tokens, return_prev_hiddens=True, prev_hiddens=prev_hiddens)

    return step, (_tokens(2, 9), hiddens), {}
