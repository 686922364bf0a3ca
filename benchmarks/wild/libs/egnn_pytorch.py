"""egnn-pytorch: E(n)-equivariant graph neural networks (lucidrains) on node features and coordinates.

Users compile the network's forward on molecules and point clouds.
"""

from __future__ import annotations

import torch
from egnn_pytorch import EGNN, EGNN_Network

DISTRIBUTION = "egnn-pytorch"
PACKAGE = "egnn_pytorch"
WHY = "graphs: equivariant message passing on point clouds and molecules"


def call_egnn_layer():
    return EGNN(dim=16), (torch.randn(1, 8, 16), torch.randn(1, 8, 3)), {}


def call_egnn_network_sparse_neighbors():
    model = EGNN_Network(num_tokens=10, dim=16, depth=2, num_nearest_neighbors=3).eval()
    feats, coors = torch.randint(0, 10, (1, 8)), torch.randn(1, 8, 3)
    return model, (feats, coors), {"mask": torch.ones(1, 8, dtype=torch.bool)}
