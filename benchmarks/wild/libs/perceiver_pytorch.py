"""perceiver-pytorch: Perceiver and Perceiver IO (lucidrains): cross-attention to a latent array.

Users compile the model's forward over images, audio or token sequences.
"""

from __future__ import annotations

import torch
from perceiver_pytorch import Perceiver, PerceiverIO

DISTRIBUTION = "perceiver-pytorch"
PACKAGE = "perceiver_pytorch"
WHY = "multimodal: Perceiver (Fourier-feature inputs, latent cross-attention) and Perceiver IO"


def call_perceiver_image():
    model = Perceiver(
        input_channels=3, input_axis=2, num_freq_bands=4, max_freq=10.0, depth=2, num_latents=8, latent_dim=32,
        latent_dim_head=16, cross_dim_head=16, num_classes=5,
    )  # fmt: skip
    return model.eval(), (torch.randn(1, 16, 16, 3),), {}


def call_perceiver_io_with_mask():
    model = PerceiverIO(dim=16, queries_dim=16, logits_dim=10, depth=2, num_latents=8, latent_dim=32, seq_dropout_prob=0.0)
    mask = torch.ones(1, 12, dtype=torch.bool)
    return model.eval(), (torch.randn(1, 12, 16),), {"mask": mask, "queries": torch.randn(4, 16)}
