"""mixture-of-experts: sparsely-gated mixture of experts (Shazeer et al.; GShard's top-2 gating), lucidrains.

Users compile the MoE layer's forward inside their transformer: top-2 gating with expert
capacity, dispatch and combine by einsum, and the auxiliary load-balancing loss it returns;
the two-level hierarchical MoE the same way.
"""

from __future__ import annotations

import torch
from mixture_of_experts import HeirarchicalMoE, MoE
from mixture_of_experts.mixture_of_experts import Experts

DISTRIBUTION = "mixture-of-experts"
PACKAGE = "mixture_of_experts"
WHY = "MoE: top-2 gated sparse mixture of experts with capacity and load-balancing loss"

DIM = 16


def call_moe_train():
    # Training mode: the second expert is kept at random ('random' policy), capacity factor 1.25.
    torch.manual_seed(0)
    moe = MoE(dim=DIM, num_experts=4, hidden_dim=32)
    return moe, (torch.randn(2, 12, DIM),), {}


def call_moe_eval_all():
    # Evaluation keeping every second expert ('all' policy; 'threshold' raises eagerly in 0.2.3, a
    # broadcast of a (b, n) mask onto (b, n, e)), with a custom expert network.
    torch.manual_seed(0)
    experts = Experts(DIM, num_experts=4, hidden_dim=32, activation=torch.nn.GELU)
    moe = MoE(dim=DIM, num_experts=4, second_policy_eval="all", experts=experts).eval()
    return moe, (torch.randn(2, 12, DIM),), {}


def call_hierarchical_moe():
    torch.manual_seed(0)
    moe = HeirarchicalMoE(dim=DIM, num_experts=(2, 2), hidden_dim=32)
    return moe, (torch.randn(2, 12, DIM),), {}
