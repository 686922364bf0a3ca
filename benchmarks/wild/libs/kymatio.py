"""kymatio: wavelet scattering transforms (1D audio / signals, 2D images) with a torch frontend.

Users compile the scattering module (an nn.Module with `frontend="torch"`) as the fixed feature
extractor in front of a classifier.
"""

from __future__ import annotations

import torch
from kymatio import Scattering1D, Scattering2D

DISTRIBUTION = "kymatio"
PACKAGE = "kymatio"
WHY = "signal processing: wavelet scattering features for audio and image classification"


def call_scattering1d():
    torch.manual_seed(0)
    return Scattering1D(J=4, shape=512, Q=4, frontend="torch"), (torch.randn(2, 512),), {}


def call_scattering1d_first_order():
    """First-order coefficients only, no low-pass averaging (T=0): a time-frequency representation."""
    torch.manual_seed(0)
    scattering = Scattering1D(J=3, shape=256, Q=2, T=0, max_order=1, out_type="list", frontend="torch")
    return scattering, (torch.randn(2, 256),), {}


def call_scattering2d():
    torch.manual_seed(0)
    return Scattering2D(J=2, shape=(32, 32), L=4, frontend="torch"), (torch.randn(2, 3, 32, 32),), {}
