"""nflows: normalising flows (masked autoregressive, coupling, spline transforms).

Users compile the flow's log_prob in the training loss and sample at inference.
"""

from __future__ import annotations

import torch
from nflows.distributions.normal import StandardNormal
from nflows.flows.base import Flow
from nflows.transforms.autoregressive import (
    MaskedAffineAutoregressiveTransform,
    MaskedPiecewiseRationalQuadraticAutoregressiveTransform,
)
from nflows.transforms.base import CompositeTransform
from nflows.transforms.permutations import ReversePermutation

DISTRIBUTION = "nflows"
PACKAGE = "nflows"
WHY = "probabilistic / generative: normalising flows (MAF, neural spline flows)"


def _maf() -> Flow:
    layers = []
    for _ in range(2):
        layers += [ReversePermutation(features=2), MaskedAffineAutoregressiveTransform(features=2, hidden_features=16)]
    return Flow(CompositeTransform(layers), StandardNormal(shape=[2])).eval()


def call_maf_log_prob():
    return _maf().log_prob, (torch.randn(8, 2),), {}


def call_maf_sample():
    return _maf().sample, (4,), {}


def call_spline_log_prob():
    transform = MaskedPiecewiseRationalQuadraticAutoregressiveTransform(features=2, hidden_features=16, num_bins=4, tails="linear")
    return Flow(transform, StandardNormal(shape=[2])).eval().log_prob, (torch.randn(8, 2),), {}
