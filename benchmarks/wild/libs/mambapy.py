"""mambapy: a pure-PyTorch Mamba (selective state space) with a parallel scan.

Users compile the model's forward for training (the parallel scan) and the recurrent step.
"""

from __future__ import annotations

import torch
from mambapy.mamba import Mamba, MambaConfig

DISTRIBUTION = "mambapy"
PACKAGE = "mambapy"
WHY = "NLP / sequence models: Mamba without CUDA kernels (pscan in PyTorch)"


def _model() -> Mamba:
    return Mamba(MambaConfig(d_model=16, n_layers=2, d_state=4)).eval()


def call_forward_pscan():
    return _model(), (torch.randn(2, 8, 16),), {}


def call_recurrent_step():
    model = _model()
    caches = [(None, torch.zeros(2, 32, 3)) for _ in range(2)]
    return model.step, (torch.randn(2, 16), caches), {}
