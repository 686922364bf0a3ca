"""roma (NAVER): rotation representations and conversions (rotation matrices, unit quaternions,
rotation vectors), differentiable Procrustes.

Users compile the conversions and mappings inside pose-estimation and 3D-vision models.
"""

from __future__ import annotations

import roma
import torch

DISTRIBUTION = "roma"
PACKAGE = "roma"
WHY = "geometry: differentiable 3D rotation conversions and Procrustes mappings"


def call_rotmat_to_unitquat():
    torch.manual_seed(0)
    return roma.rotmat_to_unitquat, (roma.random_rotmat(5),), {}


def call_special_procrustes():
    torch.manual_seed(0)
    return roma.special_procrustes, (torch.randn(5, 3, 3),), {}


def call_rotvec_to_rotmat():
    torch.manual_seed(0)
    return roma.rotvec_to_rotmat, (torch.randn(5, 3),), {}


def call_rigid_registration():
    torch.manual_seed(0)
    x = torch.randn(16, 3)
    return roma.rigid_points_registration, (x, x @ roma.random_rotmat() + 0.1), {}
