"""dasp-pytorch: differentiable audio effects (gain, EQ, compressor, reverb) in PyTorch (Steinmetz).

Users compile the processors a neural network controls with normalised parameters
(`Processor.process_normalized`, the documented way to drive them from a model's output) and the
functional effects directly: a parametric EQ, a compressor and a noise-shaped reverb.
"""

from __future__ import annotations

import dasp_pytorch
import torch
from dasp_pytorch import functional

DISTRIBUTION = "dasp-pytorch"
PACKAGE = "dasp_pytorch"
WHY = "audio/signal: differentiable audio effects driven by neural networks (EQ, dynamics, reverb)"

_SR, _B, _CH, _T = 44100, 2, 1, 2048


def _audio() -> torch.Tensor:
    torch.manual_seed(0)
    return torch.randn(_B, _CH, _T) * 0.1


def _params(processor) -> torch.Tensor:
    torch.manual_seed(1)
    return torch.rand(_B, processor.num_params)


def call_parametric_eq_normalized():
    eq = dasp_pytorch.ParametricEQ(sample_rate=_SR)
    return eq.process_normalized, (_audio(), _params(eq)), {}


def call_compressor_normalized():
    comp = dasp_pytorch.Compressor(sample_rate=_SR)
    return comp.process_normalized, (_audio(), _params(comp)), {}


def call_reverb_functional():
    torch.manual_seed(2)
    gains, decays = torch.rand(_B, 12), torch.rand(_B, 12)

    def reverb(x, band_gains, band_decays, mix):  # 12 band gains, 12 band decays, a dry/wet mix
        return functional.noise_shaped_reverberation(
            x, _SR, *band_gains.unbind(1), *band_decays.unbind(1), mix, num_samples=4096, num_bandpass_taps=255
        )

    return reverb, (_audio(), gains, decays, torch.rand(_B)), {}
