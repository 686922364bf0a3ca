"""torch-kmeans: batched KMeans, Soft-KMeans and Constrained-KMeans as nn.Modules.

Users compile a clusterer's forward on a batch of point sets (BS, N, D), which initialises centers
and iterates assignments until they settle, returning the labels, centers and inertia. The calls run
plain KMeans with k-means++ initialisation, with a different k per instance, differentiable
Soft-KMeans (cosine similarity) and capacity-constrained KMeans on weighted points.
"""

from __future__ import annotations

import torch
from torch_kmeans import ConstrainedKMeans, KMeans, SoftKMeans

DISTRIBUTION = "torch-kmeans"
PACKAGE = "torch_kmeans"
WHY = "clustering: batched (soft, constrained) k-means modules"

_BS, _N, _D = 2, 24, 3


def _points() -> torch.Tensor:
    torch.manual_seed(0)
    return torch.randn(_BS, _N, _D)


def call_kmeans_plusplus():
    model = KMeans(init_method="k-means++", num_init=2, max_iter=10, n_clusters=3, verbose=False)
    return model, (_points(),), {}


def call_kmeans_per_instance_k():
    model = KMeans(num_init=2, max_iter=10, n_clusters=None, verbose=False)
    return model, (_points(),), {"k": torch.tensor([2, 4])}


def call_soft_kmeans():
    model = SoftKMeans(max_iter=10, n_clusters=3, temp=5.0, verbose=False)
    return model, (_points(),), {}


def call_constrained_kmeans():
    model = ConstrainedKMeans(init_method="ckm++", num_init=2, max_iter=10, n_clusters=4, verbose=False)
    weights = torch.rand(_BS, _N) * 0.1 + 0.05  # demands, normalised into (0, 1]
    return model, (_points(),), {"weights": weights}
