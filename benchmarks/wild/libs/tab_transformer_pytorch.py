"""tab-transformer-pytorch: TabTransformer and FT-Transformer for tabular data (lucidrains).

Users compile the model's forward on a batch of categorical ids and continuous features.
"""

from __future__ import annotations

import torch
from tab_transformer_pytorch import FTTransformer, TabTransformer

DISTRIBUTION = "tab-transformer-pytorch"
PACKAGE = "tab_transformer_pytorch"
WHY = "tabular: transformer models over embedded categorical and continuous columns"

_CATEGORIES = (4, 5, 3)


def _features() -> tuple[torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    categ = torch.stack([torch.randint(0, n, (8,)) for n in _CATEGORIES], dim=1)
    return categ, torch.randn(8, 2)


def call_tab_transformer():
    torch.manual_seed(0)
    # the README passes the MLP activation (its default None leaves a None layer in the head)
    model = TabTransformer(
        categories=_CATEGORIES, num_continuous=2, dim=16, depth=2, heads=2, dim_out=1, mlp_act=torch.nn.ReLU()
    )
    return model.eval(), _features(), {}


def call_ft_transformer():
    torch.manual_seed(0)
    model = FTTransformer(categories=_CATEGORIES, num_continuous=2, dim=16, depth=2, heads=2, dim_out=1)
    return model.eval(), _features(), {}
