"""torchio: medical-imaging (3-D MRI/CT) preprocessing and augmentation transforms.

Users call transforms on a 4-D tensor (channels, x, y, z) or a Subject in the data pipeline,
and the intensity transforms on GPU batches inside compiled training code.
"""

from __future__ import annotations

import torch
import torchio as tio

DISTRIBUTION = "torchio"
PACKAGE = "torchio"
WHY = "medical imaging: 3-D intensity and spatial augmentation on tensors and subjects"


def _volume() -> torch.Tensor:
    return torch.rand(1, 16, 16, 16)


def call_rescale_intensity():
    return tio.RescaleIntensity(out_min_max=(0, 1)), (_volume(),), {}


def call_random_noise():
    return tio.RandomNoise(std=0.1), (_volume(),), {}


def call_random_affine_subject():
    subject = tio.Subject(image=tio.ScalarImage(tensor=_volume()))
    return tio.RandomAffine(degrees=10, scales=0.1), (subject,), {}
