"""s5-pytorch: S5 simplified state-space layers for long sequences (Smith et al. 2023), in PyTorch.

Users compile the raw S5 operator over a sequence (parallel scan), the S5 block (S5 with a GLU
feed-forward, layer norm and residual) uni- and bidirectional, and the block returning its state
(what a streaming user carries to the next chunk).
"""

from __future__ import annotations

import torch
from s5 import S5, S5Block

DISTRIBUTION = "s5-pytorch"
PACKAGE = "s5"
WHY = "sequence models: diagonal state-space layers (S5) with a parallel associative scan"

_B, _L, _D = 2, 32, 16


def _sequence() -> torch.Tensor:
    torch.manual_seed(1)
    return torch.rand(_B, _L, _D)


def call_s5_operator():
    torch.manual_seed(0)
    return S5(_D, _D), (_sequence(),), {}


def call_s5_block():
    torch.manual_seed(0)
    return S5Block(_D, _D, False), (_sequence(),), {}


def call_s5_block_bidirectional():
    torch.manual_seed(0)
    return S5Block(_D, _D, True), (_sequence(),), {}


def call_s5_block_state():
    torch.manual_seed(0)
    return S5Block(_D, _D, False), (_sequence(),), {"return_state": True}
