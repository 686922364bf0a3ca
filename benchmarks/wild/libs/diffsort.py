"""diffsort: differentiable sorting networks (Petersen et al., ICML 2021 / ICLR 2022).

Users compile the relaxed sort inside a ranking loss: the module's forward on a bitonic network
(Cauchy relaxation) and on an odd-even network (logistic with the ART correction), and the
functional `sort` with the monotonic "optimal" relaxation inside the paper's ranking loss (binary
cross-entropy between the relaxed permutation matrix and the true one).
"""

from __future__ import annotations

import torch
from diffsort import DiffSortNet, get_sorting_network, sort

DISTRIBUTION = "diffsort"
PACKAGE = "diffsort"
WHY = "losses: differentiable sorting and ranking relaxations for ranking supervision"


def call_bitonic_cauchy():
    torch.manual_seed(0)
    return DiffSortNet("bitonic", 8, steepness=10.0), (torch.randn(4, 8),), {}


def call_odd_even_logistic_phi():
    torch.manual_seed(0)
    return DiffSortNet("odd_even", 6, steepness=20.0, distribution="logistic_phi"), (torch.randn(4, 6),), {}


def call_ranking_loss():
    torch.manual_seed(0)
    network = get_sorting_network("odd_even", 5, "cpu")

    def ranking_loss(scores, ranks):
        _, perm = sort(network, scores, steepness=15.0, distribution="optimal")
        target = torch.nn.functional.one_hot(torch.argsort(ranks, dim=-1), 5).transpose(-2, -1).float()
        return torch.nn.functional.binary_cross_entropy(perm.clamp(0, 1), target)

    return ranking_loss, (torch.randn(4, 5), torch.randn(4, 5)), {}
