"""rtdl-revisiting-models: tabular deep-learning baselines (MLP, ResNet, FT-Transformer).

Users compile the model's forward on batches of numeric and categorical features.
"""

from __future__ import annotations

import torch
from rtdl_revisiting_models import MLP, FTTransformer

DISTRIBUTION = "rtdl-revisiting-models"
PACKAGE = "rtdl_revisiting_models"
WHY = "tabular: the reference MLP/ResNet/FT-Transformer models for tabular data"


def call_ft_transformer():
    model = FTTransformer(n_cont_features=3, cat_cardinalities=[4, 5], d_out=1, **FTTransformer.get_default_kwargs(n_blocks=2))
    return model.eval(), (torch.randn(8, 3), torch.stack([torch.randint(0, 4, (8,)), torch.randint(0, 5, (8,))], 1)), {}


def call_mlp():
    return MLP(d_in=6, d_out=1, n_blocks=2, d_block=16, dropout=0.1).eval(), (torch.randn(8, 6),), {}
