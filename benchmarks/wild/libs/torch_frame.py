"""PyTorch Frame (the PyG team): deep learning on tabular data, `TensorFrame`s of typed columns.

Users compile a model's forward on a materialised dataset's `TensorFrame`: the calls build one
small synthetic table with numerical and categorical columns (the library's `FakeDataset`, no
download), take its column statistics, and run FT-Transformer, Trompt, ExcelFormer and TabNet.
"""

from __future__ import annotations

import torch
import torch_frame
from torch_frame.datasets import FakeDataset
from torch_frame.nn.models import ExcelFormer, FTTransformer, TabNet, Trompt

DISTRIBUTION = "pytorch-frame"
PACKAGE = "torch_frame"
WHY = "tabular deep learning: transformer, prompt and attentive models over typed table columns"


def _dataset(stypes=(torch_frame.numerical, torch_frame.categorical)):
    torch.manual_seed(0)
    dataset = FakeDataset(
        num_rows=16, stypes=list(stypes), task_type=torch_frame.TaskType.BINARY_CLASSIFICATION
    )
    dataset.materialize()
    return dataset


def call_ft_transformer():
    ds = _dataset()
    model = FTTransformer(channels=16, out_channels=2, num_layers=2, col_stats=ds.col_stats,
                          col_names_dict=ds.tensor_frame.col_names_dict)  # fmt: skip
    return model, (ds.tensor_frame,), {}


def call_trompt():
    ds = _dataset()
    model = Trompt(channels=16, out_channels=2, num_prompts=4, num_layers=2, col_stats=ds.col_stats,
                   col_names_dict=ds.tensor_frame.col_names_dict)  # fmt: skip
    return model, (ds.tensor_frame,), {}


def call_excelformer():
    ds = _dataset(stypes=(torch_frame.numerical,))
    model = ExcelFormer(in_channels=16, out_channels=2, num_cols=ds.tensor_frame.num_cols, num_layers=2,
                        num_heads=2, col_stats=ds.col_stats, col_names_dict=ds.tensor_frame.col_names_dict)  # fmt: skip
    return model, (ds.tensor_frame,), {}


def call_tabnet():
    ds = _dataset()
    model = TabNet(out_channels=2, num_layers=2, split_feat_channels=8, split_attn_channels=8, gamma=1.2,
                   col_stats=ds.col_stats, col_names_dict=ds.tensor_frame.col_names_dict)  # fmt: skip
    return model, (ds.tensor_frame,), {}
