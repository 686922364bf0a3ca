"""dynamic-network-architectures (MIC-DKFZ): the configurable networks nnU-Net trains (plain and
residual-encoder U-Nets in 2D and 3D, with deep supervision), and ResNet/VGG classifiers.

Users compile the network nnU-Net's plans build: a 3D plain-convolution U-Net with instance norm and
deep supervision, a 2D residual-encoder U-Net, and a 2D ResNet-D classifier with squeeze-excitation.
"""

from __future__ import annotations

import torch
from dynamic_network_architectures.architectures.resnet import ResNetD
from dynamic_network_architectures.architectures.unet import PlainConvUNet, ResidualEncoderUNet
from torch import nn

DISTRIBUTION = "dynamic-network-architectures"
PACKAGE = "dynamic_network_architectures"
WHY = "medical imaging: nnU-Net's dynamic 2D/3D U-Net architectures"

_NORM = {"eps": 1e-5, "affine": True}
_NONLIN = {"inplace": True}


def call_plain_unet_3d_deep_supervision():
    torch.manual_seed(0)
    model = PlainConvUNet(
        input_channels=1, n_stages=3, features_per_stage=[4, 8, 16], conv_op=nn.Conv3d, kernel_sizes=3,
        strides=[1, 2, 2], n_conv_per_stage=2, num_classes=3, n_conv_per_stage_decoder=2, conv_bias=True,
        norm_op=nn.InstanceNorm3d, norm_op_kwargs=_NORM, nonlin=nn.LeakyReLU, nonlin_kwargs=_NONLIN,
        deep_supervision=True,
    )  # fmt: skip
    return model.eval(), (torch.randn(1, 1, 16, 16, 16),), {}


def call_residual_encoder_unet_2d():
    torch.manual_seed(0)
    model = ResidualEncoderUNet(
        input_channels=2, n_stages=4, features_per_stage=[8, 16, 32, 32], conv_op=nn.Conv2d, kernel_sizes=3,
        strides=[1, 2, 2, 2], n_blocks_per_stage=[1, 2, 2, 2], num_classes=2, n_conv_per_stage_decoder=1,
        conv_bias=True, norm_op=nn.BatchNorm2d, norm_op_kwargs=_NORM, nonlin=nn.ReLU, nonlin_kwargs=_NONLIN,
    )  # fmt: skip
    return model.eval(), (torch.randn(2, 2, 32, 32),), {}


def call_resnet_2d_classifier():
    torch.manual_seed(0)
    model = ResNetD(n_classes=4, n_input_channel=1, config="18", input_dimension=2, squeeze_excitation=True)
    return model.eval(), (torch.randn(2, 1, 64, 64),), {}
