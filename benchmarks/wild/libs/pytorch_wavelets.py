"""pytorch-wavelets: 2-D discrete and dual-tree complex wavelet transforms as nn.Modules.

Users put the transforms inside models (wavelet pooling, scattering-like features) and losses.
"""

from __future__ import annotations

import sys
import types
from importlib import resources

import torch

# pytorch_wavelets.dtcwt.coeffs reads its filter tables with `pkg_resources.resource_stream`, which
# setuptools 81+ no longer ships (the corpus venv has 84, and downgrading it is not allowed); the
# package's __init__ imports it, so without this one-function stand-in nothing can be imported.
if "pkg_resources" not in sys.modules:
    try:
        import pkg_resources  # noqa: F401
    except ImportError:
        _shim = types.ModuleType("pkg_resources")
        _shim.resource_stream = lambda package, name: resources.files(package).joinpath(name).open("rb")  # type: ignore[attr-defined]
        sys.modules["pkg_resources"] = _shim

from pytorch_wavelets import DTCWTForward, DWTForward, DWTInverse

DISTRIBUTION = "pytorch-wavelets"
PACKAGE = "pytorch_wavelets"
WHY = "scientific / signal processing: 2-D DWT and DTCWT filter banks as modules"


def _image() -> torch.Tensor:
    return torch.randn(1, 1, 32, 32)


def call_dwt_forward():
    return DWTForward(J=2, wave="db2", mode="zero"), (_image(),), {}


def _dwt_roundtrip(forward: DWTForward, inverse: DWTInverse, image: torch.Tensor) -> torch.Tensor:
    low, highs = forward(image)
    return inverse((low, highs))


def call_dwt_roundtrip():
    return (
        _dwt_roundtrip,
        (DWTForward(J=2, wave="haar", mode="symmetric"), DWTInverse(wave="haar", mode="symmetric"), _image()),
        {},
    )


def call_dtcwt_forward():
    return DTCWTForward(J=2, biort="near_sym_b", qshift="qshift_b"), (_image(),), {}
