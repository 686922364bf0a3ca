"""PyTorch Geometric: graph neural networks (message passing, pooling).

Users compile a GNN's forward on (node features, edge_index): GCN, GAT and GraphSAGE stacks, and
a graph-level classifier with global pooling over a batch of graphs.
"""

from __future__ import annotations

import torch
from torch import nn
from torch_geometric.nn import GINConv, global_mean_pool
from torch_geometric.nn.models import GAT, GCN, GraphSAGE

DISTRIBUTION = "torch-geometric"
PACKAGE = "torch_geometric"
WHY = "scientific ML: GNNs; the reference message-passing library (documents torch.compile use)"


def _graph(nodes: int = 20, edges: int = 60):
    return torch.randn(nodes, 8), torch.randint(0, nodes, (2, edges))


def call_gcn():
    return GCN(8, 16, num_layers=2, out_channels=4).eval(), _graph(), {}


def call_gat():
    return GAT(8, 16, num_layers=2, out_channels=4, heads=2).eval(), _graph(), {}


def call_graphsage():
    return GraphSAGE(8, 16, num_layers=2, out_channels=4).eval(), _graph(), {}


class GraphClassifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = GINConv(nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 16)))
        self.head = nn.Linear(16, 3)

    def forward(self, x, edge_index, batch):
        return self.head(global_mean_pool(self.conv(x, edge_index).relu(), batch))


def call_gin_global_pool():
    x, edge_index = _graph()
    batch = torch.arange(2).repeat_interleave(10)
    return GraphClassifier().eval(), (x, edge_index, batch), {}


# Calls written for the rewrites (issue 16's calls-per-rewrite check). Every torch_geometric rewrite
# is an added `@torch.compiler.disable` on a helper with a data-dependent shape (`unique`, `nonzero`,
# mask indexing); the benchmark's GCN and GAT calls run two of them (`add_remaining_self_loops`,
# `remove_self_loops`). These run the other six through the public call that reaches each.


def _ring(nodes: int):
    """A directed ring plus its reverse: every node has degree 2, no self-loops."""
    forward = torch.stack((torch.arange(nodes), (torch.arange(nodes) + 1) % nodes))
    return torch.cat((forward, forward.flip(0)), dim=1)


def rewrite_call_avg_pool_x():
    """torch_geometric/nn/pool/consecutive.py:consecutive_cluster, through `avg_pool_x` (cluster
    pooling: the cluster ids are made consecutive before scattering)."""
    from torch_geometric.nn import avg_pool_x

    x = torch.randn(12, 8).requires_grad_()
    cluster = torch.tensor([7, 7, 3, 3, 3, 9, 9, 12, 12, 12, 20, 20])
    batch = torch.tensor([0] * 5 + [1] * 7)
    return avg_pool_x, (cluster, x, batch), {}


def rewrite_call_mask_to_index():
    """torch_geometric/utils/mask.py:mask_to_index, through the `MaskToIndex` transform."""
    from torch_geometric.data import Data
    from torch_geometric.transforms import MaskToIndex

    x, edge_index = _graph()
    data = Data(x=x, edge_index=edge_index, train_mask=torch.rand(20) < 0.5, val_mask=torch.rand(20) < 0.3)
    return MaskToIndex(), (data,), {}


def rewrite_call_random_walk_pe_sparse():
    """torch_geometric/utils/loop.py:get_self_loop_attr, through `AddRandomWalkPE`: graphs over 2,000
    nodes take its sparse path, which reads the return probabilities with get_self_loop_attr."""
    from torch_geometric.data import Data
    from torch_geometric.transforms import AddRandomWalkPE

    data = Data(x=torch.randn(2048, 1), edge_index=_ring(2048))
    return AddRandomWalkPE(walk_length=3), (data,), {}


def rewrite_call_k_hop_subgraph():
    """torch_geometric/utils/_subgraph.py:k_hop_subgraph (public utility: the explainers' and
    neighbour samplers' subgraph), two hops around two nodes, relabelled."""
    from torch_geometric.utils import k_hop_subgraph

    _, edge_index = _graph()
    return k_hop_subgraph, (torch.tensor([0, 5]), 2, edge_index), {"relabel_nodes": True, "num_nodes": 20}


def rewrite_call_hypergraph_subgraph():
    """torch_geometric/utils/_subgraph.py:hyper_subgraph, through `HyperGraphData.subgraph`."""
    from torch_geometric.data.hypergraph_data import HyperGraphData

    edge_index = torch.tensor([[0, 1, 0, 2, 1, 1, 2, 4, 3, 4], [0, 0, 1, 1, 1, 2, 2, 2, 3, 3]])
    data = HyperGraphData(x=torch.randn(5, 4), edge_index=edge_index, edge_attr=torch.randn(4, 2))
    return data.subgraph, (torch.tensor([1, 2, 4]),), {}


def rewrite_call_dimenet_triplets():
    """torch_geometric/nn/models/dimenet.py:triplets, called directly: DimeNet's and GNNFF's forward
    call torch_cluster's `radius_graph` first, which this environment lacks (no torch-cluster wheel
    for torch 2.13), so no public call reaches it. triplets itself builds a torch_sparse
    `SparseTensor`, also absent, so the call raises ImportError on both sides; it checks that the
    decorated helper raises as the original does, no more."""
    from torch_geometric.nn.models.dimenet import triplets

    return triplets, (_ring(6),), {"num_nodes": 6}
