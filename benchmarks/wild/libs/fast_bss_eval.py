"""fast-bss-eval (Robin Scheibler): fast BSS Eval metrics (SDR, SIR, SAR, SI-SDR) for source separation,
in NumPy and torch, with differentiable losses (SDR and SI-SDR, with permutation-invariant training).

Users compile the separation losses in a training step (permutation-invariant SDR with the conjugate
gradient solver, SI-SDR) and the evaluation metric (`bss_eval_sources`) on torch tensors.
"""

from __future__ import annotations

import fast_bss_eval
import torch

DISTRIBUTION = "fast-bss-eval"
PACKAGE = "fast_bss_eval"
WHY = "audio: source-separation metrics and differentiable SDR losses"


def _signals(batch: int = 2, sources: int = 2, samples: int = 800) -> tuple[torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    ref = torch.randn(batch, sources, samples)
    return ref + 0.3 * torch.randn(batch, sources, samples), ref


def call_sdr_pit_loss_cgd():
    est, ref = _signals()
    return fast_bss_eval.sdr_pit_loss, (est, ref), {"filter_length": 32, "use_cg_iter": 5}


def call_si_sdr_loss():
    est, ref = _signals()
    return fast_bss_eval.si_sdr_loss, (est, ref), {"zero_mean": True}


def call_bss_eval_sources():
    est, ref = _signals(batch=1)
    return fast_bss_eval.bss_eval_sources, (ref, est), {"filter_length": 32}
