"""`len()` of an object of a compiled class (pywt.Wavelet, Cython) as libraries spell it (GB6012,
GM652): built in place, through a helper every path of which builds one, through a helper or a
parameter annotated with the class; near misses: its attributes, a union annotation given a name."""

import pywt
import torch
from pywt import Wavelet
from torch import nn


def as_wavelet(wavelet: Wavelet | str) -> Wavelet:
    if isinstance(wavelet, str):
        return pywt.Wavelet(wavelet)
    return wavelet


def build(name: str):
    return pywt.Wavelet(name)


def length(w: Wavelet) -> int:
    return len(w)


def length_of_either(w: Wavelet | str) -> int:
    return len(w)


class ProbeBuiltInPlace(nn.Module):
    def forward(self, x, w, name):
        return x * len(build("db2"))


class ProbeAnnotatedHelper(nn.Module):
    def forward(self, x, w, name):
        return x * len(as_wavelet(w))


class ProbeAnnotatedHelperGivenName(nn.Module):
    def forward(self, x, w, name):
        return x * len(as_wavelet(name))


class ProbeAnnotatedParameter(nn.Module):
    def forward(self, x, w, name):
        return x * length(w)


class ProbeAttributes(nn.Module):
    def forward(self, x, w, name):
        return x * w.dec_len + len(w.dec_lo)


class ProbeUnionGivenName(nn.Module):
    def forward(self, x, w, name):
        return x * length_of_either(name)


def inputs():
    return (torch.ones(3), pywt.Wavelet("db2"), "db2")
