"""GB6012 Cannot trace user-defined __len__: `len()` of an object of a Cython class (pywt.Wavelet),
returned by a helper every path of which builds one (GM652). A helper that builds one only from a
name and passes anything else through: tests/test_len_of_coerced_object.py."""

import pywt
import torch


def as_wavelet(name):
    return pywt.Wavelet(name)  # graph-break: GB0156 GM651


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        size = len(as_wavelet("db2"))  # graph-break: GB6012 GM652
        return x + size


def inputs():
    return (torch.ones(3),)
