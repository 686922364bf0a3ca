"""graph-transformer-pytorch: the graph transformer of AlphaFold2-style models (node attention
biased by edge features, gated residuals, optional rotary relative positions).

Users compile the model's forward on batches of padded graphs (node features, edge features or an
adjacency matrix, a node mask), as the README shows.
"""

from __future__ import annotations

import torch
from graph_transformer_pytorch import GraphTransformer

DISTRIBUTION = "graph-transformer-pytorch"
PACKAGE = "graph_transformer_pytorch"
WHY = "graphs: edge-biased graph transformer for molecules and protein structure"


def _graph(batch: int = 2, nodes: int = 12, dim: int = 32) -> tuple[torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    mask = torch.ones(batch, nodes, dtype=torch.bool)
    mask[1, nodes - 3 :] = False  # the second graph has fewer nodes (padding)
    return torch.randn(batch, nodes, dim), mask


def call_edge_features():
    nodes, mask = _graph()
    model = GraphTransformer(dim=32, depth=2, edge_dim=16, dim_head=16, heads=4, with_feedforwards=True,
                             gated_residual=True, rel_pos_emb=True)  # fmt: skip
    return model, (nodes, torch.randn(2, 12, 12, 16), None, mask), {}


def call_adjacency_matrix():
    nodes, mask = _graph()
    adjacency = torch.rand(2, 12, 12) > 0.7
    model = GraphTransformer(dim=32, depth=2, dim_head=16, heads=4, accept_adjacency_matrix=True)
    return model, (nodes,), {"adj_mat": adjacency, "mask": mask}
