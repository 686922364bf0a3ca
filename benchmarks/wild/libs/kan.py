"""pykan: Kolmogorov-Arnold Networks (learnable B-spline activations on edges), module `kan`.

Users compile the network's forward (in its default mode, which records activations for pruning
and plotting, and in `speed()` mode), and the sparsity-regularised loss `KAN.fit` minimises.
"""

from __future__ import annotations

import torch
from kan import KAN

DISTRIBUTION = "pykan"
PACKAGE = "kan"
WHY = "scientific ML: Kolmogorov-Arnold networks (spline edges, symbolic branch, multiplication nodes)"


def _kan(width, **options):
    # auto_save=False: the default writes a checkpoint directory at construction.
    return KAN(width=width, grid=5, k=3, seed=0, auto_save=False, **options)


def call_forward():
    return _kan([2, 5, 1]), (torch.rand(16, 2) * 2 - 1,), {}


def call_speed_mode_forward():
    model = _kan([3, 4, 1])
    model.speed()
    return model, (torch.rand(16, 3) * 2 - 1,), {}


def call_multiplication_nodes_forward():
    return _kan([2, [3, 2], 1]), (torch.rand(16, 2) * 2 - 1,), {}


def call_regularised_loss():
    model = _kan([2, 5, 1])

    def loss(x, y):  # the objective of KAN.fit with lamb > 0 (its default reg_metric)
        pred = model(x)
        return torch.mean((pred - y) ** 2) + 1e-2 * model.get_reg("edge_forward_spline_n", 1.0, 2.0, 0.0, 0.0)

    return loss, (torch.rand(16, 2) * 2 - 1, torch.rand(16, 1)), {}
