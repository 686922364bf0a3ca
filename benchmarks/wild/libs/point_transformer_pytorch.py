"""point-transformer-pytorch: Point Transformer layers for 3-D point clouds (vector attention over
relative positions, optional k-nearest-neighbour restriction).

Users compile the layer's forward on batches of point features and xyz positions, as the README
shows, with and without the nearest-neighbour restriction and a point mask.
"""

from __future__ import annotations

import torch
from point_transformer_pytorch import MultiheadPointTransformerLayer, PointTransformerLayer

DISTRIBUTION = "point-transformer-pytorch"
PACKAGE = "point_transformer_pytorch"
WHY = "vision 3-D: attention layers for point clouds"


def _cloud(points: int = 64, dim: int = 32) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    mask = torch.ones(1, points, dtype=torch.bool)
    mask[:, points - 8 :] = False
    return torch.randn(1, points, dim), torch.randn(1, points, 3), mask


def call_point_attention():
    feats, pos, mask = _cloud()
    return (
        PointTransformerLayer(dim=32, pos_mlp_hidden_dim=32, attn_mlp_hidden_mult=2),
        (feats, pos),
        {"mask": mask},
    )


def call_point_attention_knn():
    feats, pos, mask = _cloud()
    layer = PointTransformerLayer(dim=32, pos_mlp_hidden_dim=32, attn_mlp_hidden_mult=2, num_neighbors=16)
    return layer, (feats, pos), {"mask": mask}


def call_multihead_knn():
    feats, pos, mask = _cloud()
    layer = MultiheadPointTransformerLayer(
        dim=32, heads=4, dim_head=16, pos_mlp_hidden_dim=32, num_neighbors=16
    )
    return layer, (feats, pos), {"mask": mask}
