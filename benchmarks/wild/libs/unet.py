"""unet (Fernando Pérez-García): configurable 1D, 2D and 3D U-Nets for (medical) image segmentation.

Users compile the network's forward: a 2D U-Net with batch norm and residual blocks, a 3D U-Net with
padding and trilinear upsampling (volumes), and a 2D U-Net with Monte Carlo dropout kept at inference.
"""

from __future__ import annotations

import torch
from unet import UNet2D, UNet3D

DISTRIBUTION = "unet"
PACKAGE = "unet"
WHY = "vision / medical imaging: 2D and 3D U-Net segmentation networks"


def call_unet2d_residual():
    torch.manual_seed(0)
    model = UNet2D(
        in_channels=1, out_classes=3, num_encoding_blocks=3, out_channels_first_layer=8,
        normalization="batch", residual=True, padding=1,
    )  # fmt: skip
    return model.eval(), (torch.randn(2, 1, 32, 32),), {}


def call_unet3d_trilinear():
    torch.manual_seed(0)
    model = UNet3D(
        in_channels=1, out_classes=2, num_encoding_blocks=2, out_channels_first_layer=4,
        normalization="instance", upsampling_type="trilinear", padding=1, preactivation=True,
    )  # fmt: skip
    return model.eval(), (torch.randn(1, 1, 16, 16, 16),), {}


def call_unet2d_mc_dropout():
    torch.manual_seed(0)
    model = UNet2D(
        in_channels=3, out_classes=2, num_encoding_blocks=3, out_channels_first_layer=8,
        padding=1, monte_carlo_dropout=0.5, pooling_type="avg",
    )  # fmt: skip
    return model.eval(), (torch.randn(1, 3, 32, 32),), {}
