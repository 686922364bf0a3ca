"""ema-pytorch: an exponential-moving-average copy of a model (with Karras et al.'s post-hoc EMA), lucidrains.

Users call `update()` after every optimizer step inside the (compiled) training step, and run the
EMA copy's forward for evaluation and sampling.
"""

from __future__ import annotations

import torch
from ema_pytorch import EMA, EMAPytree, KarrasEMA

DISTRIBUTION = "ema-pytorch"
PACKAGE = "ema_pytorch"
WHY = "training utility: EMA weights updated in the training step and used for evaluation"


def _net() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.BatchNorm1d(16), torch.nn.Linear(16, 4))


def _moved(net: torch.nn.Module) -> None:
    """An optimizer step's stand-in: the online weights move, so the EMA has something to follow."""
    with torch.no_grad():
        for parameter in net.parameters():
            parameter.add_(0.01 * torch.randn_like(parameter))


def call_ema_update():
    net = _net()
    ema = EMA(net, beta=0.99, update_after_step=0, update_every=1)
    ema.update()  # the first update copies the weights; the compiled one averages
    _moved(net)
    return ema.update, (), {}


def call_ema_forward():
    net = _net()
    ema = EMA(net, beta=0.99, update_after_step=0, update_every=1)
    ema.update()
    ema.eval()
    return ema, (torch.randn(4, 8),), {}


def call_karras_ema_update():
    net = _net()
    ema = KarrasEMA(net, sigma_rel=0.05, update_every=1)
    ema.update()
    _moved(net)
    return ema.update, (), {}


def call_pytree_ema_update():
    torch.manual_seed(0)
    weights = {"w": torch.randn(8, 4), "b": torch.zeros(4)}
    ema = EMAPytree(weights, beta=0.99, update_after_step=0, update_every=1)
    ema.update()
    with torch.no_grad():
        weights["w"].add_(0.01)
    return ema.update, (), {}
