"""e2cnn (QUVA Lab): E(2)-equivariant steerable CNNs (Weiler & Cesa 2019).

Users compile their network's forward, which wraps the image in a `GeometricTensor` of the input
field type, runs the library's equivariant modules and unwraps the result. The calls: a C8
regular-representation CNN (the README's model: steerable convolutions, inner batch norm, ReLU,
max pooling, group pooling) in training and in eval mode (where `R2Conv` caches its expanded filter),
a C8 network on irreducible fields with norm batch norm, norm nonlinearities and norm pooling, and
a C4 encoder-decoder with upsampling and a transposed convolution. Only cyclic groups: the kernel
bases of SO(2) and of groups with flips hash `ndarray.tostring()`, which NumPy 2 removed, so
building any of their convolutions raises (measured eagerly: `Rot2dOnR2(N=-1)`, `FlipRot2dOnR2`).
"""

from __future__ import annotations

import torch
from e2cnn import gspaces
from e2cnn import nn as enn

DISTRIBUTION = "e2cnn"
PACKAGE = "e2cnn"
WHY = "equivariant networks: E(2)-steerable convolutions, equivariant nonlinearities, pooling and norms"


def _wrap(model: enn.EquivariantModule, in_type: enn.FieldType):
    def forward(x):  # a user's forward: tensor in, field, tensor out
        return model(enn.GeometricTensor(x, in_type)).tensor

    return forward


def _c8_cnn() -> tuple[enn.EquivariantModule, enn.FieldType]:
    torch.manual_seed(0)
    space = gspaces.Rot2dOnR2(N=8)
    in_type = enn.FieldType(space, [space.trivial_repr])
    hidden = enn.FieldType(space, 4 * [space.regular_repr])
    model = enn.SequentialModule(
        enn.R2Conv(in_type, hidden, kernel_size=5, padding=2),
        enn.InnerBatchNorm(hidden),
        enn.ReLU(hidden, inplace=True),
        enn.PointwiseMaxPool(hidden, kernel_size=2),
        enn.R2Conv(hidden, hidden, kernel_size=3, padding=1),
        enn.GroupPooling(hidden),
    )
    return model, in_type


def call_c8_cnn_train():
    model, in_type = _c8_cnn()
    return _wrap(model, in_type), (torch.randn(2, 1, 16, 16),), {}


def call_c8_cnn_eval():
    model, in_type = _c8_cnn()
    model.eval()
    return _wrap(model, in_type), (torch.randn(2, 1, 16, 16),), {}


def call_c8_norm_network():
    torch.manual_seed(0)
    space = gspaces.Rot2dOnR2(N=8)
    in_type = enn.FieldType(space, [space.trivial_repr])
    hidden = enn.FieldType(space, 3 * [space.irrep(1), space.irrep(2)])
    model = enn.SequentialModule(
        enn.R2Conv(in_type, hidden, kernel_size=5, padding=2),
        enn.NormBatchNorm(hidden),
        enn.NormNonLinearity(hidden, function="n_relu"),
        enn.R2Conv(hidden, hidden, kernel_size=3, padding=1),
        enn.NormPool(hidden),
    )
    return _wrap(model, in_type), (torch.randn(2, 1, 12, 12),), {}


def call_c4_encoder_decoder():
    torch.manual_seed(0)
    space = gspaces.Rot2dOnR2(N=4)
    in_type = enn.FieldType(space, 3 * [space.trivial_repr])
    hidden = enn.FieldType(space, 2 * [space.regular_repr])
    out_type = enn.FieldType(space, [space.trivial_repr])
    model = enn.SequentialModule(
        enn.R2Conv(in_type, hidden, kernel_size=3, padding=1, stride=2),
        enn.ELU(hidden),
        enn.R2Upsampling(hidden, scale_factor=2),
        enn.R2ConvTransposed(hidden, out_type, kernel_size=3, padding=1),
    )
    return _wrap(model, in_type), (torch.randn(2, 3, 16, 16),), {}
