"""FrEIA: invertible neural networks (normalizing flows, INNs) from coupling blocks.

Users compile the INN's forward, which returns the latent code and the log-Jacobian-determinant
their maximum-likelihood loss needs, and its inverse (`rev=True`) to sample.
"""

from __future__ import annotations

import FrEIA.framework as ff
import FrEIA.modules as fm
import torch
from torch import nn

DISTRIBUTION = "FrEIA"
PACKAGE = "FrEIA"
WHY = "generative: invertible networks (AllInOne, Glow, RealNVP coupling blocks) with log-det"


def _subnet(c_in: int, c_out: int) -> nn.Module:  # the README's subnet constructor
    return nn.Sequential(nn.Linear(c_in, 32), nn.ReLU(), nn.Linear(32, c_out))


def _all_in_one_inn() -> ff.SequenceINN:
    torch.manual_seed(0)
    inn = ff.SequenceINN(4)
    for _ in range(3):
        inn.append(fm.AllInOneBlock, subnet_constructor=_subnet, permute_soft=True)
    return inn


def call_all_in_one_forward():
    return _all_in_one_inn(), (torch.randn(16, 4),), {}


def call_all_in_one_inverse():
    return _all_in_one_inn(), (torch.randn(16, 4),), {"rev": True}


def call_glow_graph_forward():
    torch.manual_seed(0)
    nodes = [ff.InputNode(4, name="input")]
    for k in range(2):
        nodes.append(ff.Node(nodes[-1], fm.GLOWCouplingBlock, {"subnet_constructor": _subnet, "clamp": 2.0}))
        nodes.append(ff.Node(nodes[-1], fm.PermuteRandom, {"seed": k}))
    nodes.append(ff.OutputNode(nodes[-1], name="output"))
    return ff.GraphINN(nodes), (torch.randn(16, 4),), {}


def call_conditional_rnvp_forward():
    torch.manual_seed(0)
    inn = ff.SequenceINN(4)
    for _ in range(2):
        inn.append(fm.RNVPCouplingBlock, cond=0, cond_shape=(3,), subnet_constructor=_subnet)
    return inn, (torch.randn(16, 4),), {"c": [torch.randn(16, 3)]}
