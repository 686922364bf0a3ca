"""loralib: LoRA (low-rank adaptation) layers, Microsoft (Hu et al. 2021).

Users swap nn.Linear / nn.Embedding / nn.Conv2d for the LoRA layers and compile the model; its
forward runs the frozen weight plus the low-rank update in training, the merged weight in eval.
"""

from __future__ import annotations

import loralib
import torch

DISTRIBUTION = "loralib"
PACKAGE = "loralib"
WHY = "efficiency: low-rank adapter layers trained in place of full fine-tuning"


def call_linear_training_forward():
    torch.manual_seed(0)
    layer = loralib.Linear(16, 8, r=4, lora_alpha=8, lora_dropout=0.1)
    return layer, (torch.randn(4, 16),), {}


def call_merged_qkv_forward():
    # the README's attention projection: q and v adapted, k frozen, in one fused Linear
    torch.manual_seed(0)
    layer = loralib.MergedLinear(16, 3 * 16, r=4, enable_lora=[True, False, True])
    return layer, (torch.randn(2, 5, 16),), {}


def call_embedding_eval_forward():
    torch.manual_seed(0)
    layer = loralib.Embedding(32, 16, r=4)
    layer.eval()  # merges the low-rank update into the weight
    return layer, (torch.randint(0, 32, (2, 6)),), {}


def call_conv2d_forward():
    torch.manual_seed(0)
    layer = loralib.Conv2d(3, 8, kernel_size=3, r=2)
    return layer, (torch.randn(2, 3, 8, 8),), {}
