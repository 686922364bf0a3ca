"""kiui (kiuikit, Jiaxiang Tang): a 3D vision toolkit: NeRF-style field encoders (TensoRF's
vector-matrix and triplane encoders, MLPs, truncated-exp density), quaternion and camera helpers,
panorama rendering.

Users compile a radiance field's query (a triplane encoder, an MLP and a truncated-exp density), the
vector-matrix encoder with its total-variation regulariser, the quaternion helpers that rotate
points, and the pinhole rendering of an equirectangular panorama.
"""

from __future__ import annotations

import math

import torch
from kiui import quaternion
from kiui.equirect import render_pinhole
from kiui.nn import MLP, trunc_exp
from kiui.nn.encoder import TriplaneEncoder, VMEncoder

DISTRIBUTION = "kiui"
PACKAGE = "kiui"
WHY = "3D vision / neural rendering: NeRF field encoders, rotations, panorama rendering"


def call_triplane_density_field():
    torch.manual_seed(0)
    encoder = TriplaneEncoder(output_dim=8, resolution=16)
    mlp = MLP(encoder.output_dim, 4, 16, 3)

    def field(points):  # density and colour of a NeRF query, as in kiui's examples
        features = mlp(encoder(points))
        return trunc_exp(features[..., 0]), torch.sigmoid(features[..., 1:])

    return field, (torch.rand(64, 3) * 2 - 1,), {}


def call_vm_encoder_with_tv():
    torch.manual_seed(0)
    encoder = VMEncoder(output_dim=4, resolution=16, mode="sum")

    def loss(points):
        return encoder(points, bound=1).square().mean() + 1e-3 * encoder.tv_loss()

    return loss, (torch.rand(64, 3) * 2 - 1,), {}


def call_quaternion_rotate_points():
    torch.manual_seed(0)
    axis_angle = torch.randn(8, 3)

    def rotate(points, matrices):
        q = quaternion.from_matrix(matrices)
        return quaternion.apply(q, points), quaternion.as_matrix(quaternion.mul(q, quaternion.inverse(q)))

    angle = axis_angle.norm(dim=1, keepdim=True)
    q = torch.cat([torch.cos(angle / 2), torch.sin(angle / 2) * axis_angle / angle], dim=1)
    return rotate, (torch.randn(8, 3), quaternion.as_matrix(q)), {}


def call_render_pinhole():
    torch.manual_seed(0)
    pano = torch.rand(3, 16, 32)
    angles = torch.tensor([0.1, -0.2]), torch.tensor([0.0, 0.3]), torch.tensor([0.5, 1.0])
    return render_pinhole, (pano, 8, 8, torch.full((2,), math.pi / 3), *angles), {}
