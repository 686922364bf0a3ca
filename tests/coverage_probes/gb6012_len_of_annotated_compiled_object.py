"""GB6012 Cannot trace user-defined __len__: `len()` of a pywt.Wavelet (a Cython class) that the
annotations say it is (GM652): a helper annotated `-> Wavelet` that passes the caller's object
through, and a parameter `w: Wavelet`. Reading the object's attributes (`w.dec_len`) traces."""

from typing import Union

import pywt
import torch
from pywt import Wavelet


def as_wavelet(wavelet: Union[Wavelet, str]) -> Wavelet:
    if isinstance(wavelet, str):
        return pywt.Wavelet(wavelet)
    return wavelet


def filter_length(w: Wavelet) -> int:
    return len(w)  # graph-break: GB6012 GM652


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor, wavelet) -> torch.Tensor:
        x = x * 2
        size = len(as_wavelet(wavelet))  # graph-break: GB6012 GM652
        return x + size + filter_length(wavelet) + wavelet.dec_len


def inputs():
    return (torch.ones(3), pywt.Wavelet("db2"))
