"""pytorch-msssim: SSIM and MS-SSIM as functions and modules.

Users compile image-restoration training steps whose loss is 1 - SSIM.
"""

from __future__ import annotations

import torch
from pytorch_msssim import SSIM, ms_ssim, ssim

DISTRIBUTION = "pytorch-msssim"
PACKAGE = "pytorch_msssim"
WHY = "metrics: fast SSIM / MS-SSIM for image losses"


def call_ssim():
    return ssim, (torch.rand(2, 3, 32, 32), torch.rand(2, 3, 32, 32)), {"data_range": 1.0}


def call_ms_ssim():
    return ms_ssim, (torch.rand(1, 3, 180, 180), torch.rand(1, 3, 180, 180)), {"data_range": 1.0}


def call_ssim_module():
    return SSIM(data_range=1.0, channel=3), (torch.rand(2, 3, 32, 32), torch.rand(2, 3, 32, 32)), {}
