"""A package with its own logging wrapper (`warning_once`), as transformers has."""

import torch

from .modeling import Decoder


def case():
    return Decoder().eval(), (torch.randn(2, 4, 8),), {"use_cache": True}
