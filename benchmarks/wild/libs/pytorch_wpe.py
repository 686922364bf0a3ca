"""pytorch-wpe (Naoyuki Kamo, ESPnet): Weighted Prediction Error speech dereverberation in torch,
on `torch_complex` STFTs (the front end ESPnet's multichannel speech recognisers train through).

Users compile the offline WPE filter on a multichannel STFT, one WPE iteration with a given power
estimate (what ESPnet's DNN-WPE front end calls with a mask-derived power), and one online step.
"""

from __future__ import annotations

import pytorch_wpe
import torch
from torch_complex.tensor import ComplexTensor

DISTRIBUTION = "pytorch-wpe"
PACKAGE = "pytorch_wpe"
WHY = "audio / speech: WPE dereverberation front end (ESPnet)"

_FREQ, _CHANNELS, _FRAMES = 9, 2, 40


def _stft(frames: int = _FRAMES) -> ComplexTensor:
    torch.manual_seed(0)
    return ComplexTensor(torch.randn(_FREQ, _CHANNELS, frames), torch.randn(_FREQ, _CHANNELS, frames))


def call_wpe_offline():
    return pytorch_wpe.wpe, (_stft(),), {"taps": 4, "delay": 2, "iterations": 2}


def call_wpe_one_iteration():
    stft = _stft()
    power = torch.rand(_FREQ, _FRAMES) + 0.1
    return pytorch_wpe.wpe_one_iteration, (stft, power), {"taps": 4, "delay": 2}


def call_online_wpe_step():
    taps, delay = 4, 2
    buffer = _stft(frames=taps + delay + 1)
    power = pytorch_wpe.get_power(buffer)[..., -1]  # the current frame's PSD, (F,)
    return pytorch_wpe.online_wpe_step, (buffer, power), {"taps": taps, "delay": delay, "alpha": 0.99}
