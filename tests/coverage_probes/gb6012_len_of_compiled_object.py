"""GB6012 Cannot trace user-defined __len__: `len()` of an object of a Cython class (pywt.Wavelet),
returned by a helper that builds one from a name or passes an object through (GM652)."""

import pywt
import torch


def as_wavelet(wavelet):
    if isinstance(wavelet, str):
        return pywt.Wavelet(wavelet)
    return wavelet


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.wavelet = pywt.Wavelet("db2")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        size = len(as_wavelet(self.wavelet))  # graph-break: GB6012 GM652
        return x + size


def inputs():
    return (torch.ones(3),)
