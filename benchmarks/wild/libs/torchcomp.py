"""torchcomp: differentiable dynamic range compressor, expander and limiter gains (DiffAPF, Chin-Yun Yu).

Users compile the gain computers inside a differentiable mixing or audio-effect model: the
compressor-expander gain on a signal's RMS envelope, the limiter gain on the signal, and the
running average that smooths the envelope, each with per-example parameters as tensors.
"""

from __future__ import annotations

import torch
import torchcomp

DISTRIBUTION = "torchcomp"
PACKAGE = "torchcomp"
WHY = "audio/signal: differentiable compressor and limiter gains (recursive filters via torchlpc)"

_B, _T, _SR = 2, 256, 16000


def _signal() -> torch.Tensor:
    torch.manual_seed(0)
    return torch.randn(_B, _T) * 0.5


def call_compexp_gain():
    def gain(x, comp_thresh, comp_ratio):  # a compressor stage: RMS envelope, gain, applied gain
        x_rms = torchcomp.avg(x.square().clamp_min(1e-8), 0.1).sqrt()
        g = torchcomp.compexp_gain(x_rms, comp_thresh, comp_ratio, -60.0, 0.5,
                                   torchcomp.ms2coef(torch.tensor(10.0), _SR), 0.05)
        return x * g

    return gain, (_signal(), torch.full((_B,), -20.0), torch.full((_B,), 4.0)), {}


def call_limiter_gain():
    def limit(x, threshold):
        return x * torchcomp.limiter_gain(x, threshold, torch.tensor(0.1), torch.tensor(0.05))

    return limit, (_signal(), torch.full((_B,), -6.0)), {}


def call_db_conversions():
    def loudness(x):  # amp2db/db2amp round trip of a gain curve, as a loss term
        db = torchcomp.amp2db(x.abs() + 1e-5)
        return torchcomp.db2amp(db.clamp(-60.0, 0.0)).mean()

    return loudness, (_signal(),), {}
