"""entmax: sparse alternatives to softmax (sparsemax, 1.5-entmax, alpha-entmax by bisection).

Users call the activations in attention and output layers of compiled models.
"""

from __future__ import annotations

import torch
from entmax import EntmaxBisect, entmax15, sparsemax

DISTRIBUTION = "entmax"
PACKAGE = "entmax"
WHY = "NLP: sparse attention and output activations (autograd Functions with sorting)"


def call_entmax15():
    return entmax15, (torch.randn(4, 10),), {"dim": -1}


def call_sparsemax():
    return sparsemax, (torch.randn(4, 10),), {"dim": -1}


def call_entmax_bisect():
    return EntmaxBisect(alpha=1.3), (torch.randn(4, 10),), {}
