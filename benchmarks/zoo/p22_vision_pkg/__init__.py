"""A small vision model split across modules: helpers in ops.py and utils.py, the tree in model.py.

Compiled with torch.compile(model) in train.py; helpers receive tensors from forward.
"""

import torch

from .model import Classifier


def case():
    return Classifier(num_classes=5).eval(), (torch.randn(2, 3, 8, 8),)
