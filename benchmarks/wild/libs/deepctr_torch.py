"""DeepCTR-Torch: click-through-rate and recommender models (DeepFM, xDeepFM, AutoInt, DIN, ...).

Users compile a model's forward on the packed feature tensor `fit`/`predict` build (every feature's
columns side by side, in the model's `feature_index` order). The calls build small sparse, dense and
behaviour-sequence features as in the library's examples and run DeepFM (factorisation machine + DNN),
xDeepFM (compressed interaction network), AutoInt (self-attention over fields) and DIN (attention
over a user's behaviour history).
"""

from __future__ import annotations

import numpy as np
import torch
from deepctr_torch.inputs import DenseFeat, SparseFeat, VarLenSparseFeat
from deepctr_torch.models import DIN, AutoInt, DeepFM, xDeepFM

DISTRIBUTION = "deepctr-torch"
PACKAGE = "deepctr_torch"
WHY = "recommender systems: CTR prediction models over sparse, dense and sequence features"

_N = 8


def _ctr_columns() -> list:
    sparse = [SparseFeat(f"C{i}", vocabulary_size=10, embedding_dim=4) for i in range(3)]
    return sparse + [DenseFeat(f"I{i}", 1) for i in range(2)]


def _packed(model, values: dict[str, np.ndarray]) -> torch.Tensor:
    # BaseModel.fit/predict: one column block per feature, in feature_index order
    cols = [np.asarray(values[name], dtype=np.float32).reshape(_N, -1) for name in model.feature_index]
    return torch.from_numpy(np.concatenate(cols, axis=-1))


def _ctr_values() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    values = {f"C{i}": rng.integers(0, 10, _N) for i in range(3)}
    values.update({f"I{i}": rng.random(_N) for i in range(2)})
    return values


def call_deepfm():
    cols = _ctr_columns()
    model = DeepFM(cols, cols, dnn_hidden_units=(16, 8), task="binary", device="cpu")
    return model, (_packed(model, _ctr_values()),), {}


def call_xdeepfm():
    cols = _ctr_columns()
    model = xDeepFM(cols, cols, dnn_hidden_units=(16, 8), cin_layer_size=(8, 8), task="binary", device="cpu")
    return model, (_packed(model, _ctr_values()),), {}


def call_autoint():
    cols = _ctr_columns()
    model = AutoInt(
        cols, cols, att_layer_num=2, att_head_num=2, dnn_hidden_units=(16,), task="binary", device="cpu"
    )
    return model, (_packed(model, _ctr_values()),), {}


def call_din():
    cols = [SparseFeat("user", 3, embedding_dim=4), SparseFeat("item_id", 4, embedding_dim=4),
            SparseFeat("cate_id", 3, embedding_dim=4), DenseFeat("pay_score", 1)]  # fmt: skip
    cols += [
        VarLenSparseFeat(SparseFeat("hist_item_id", 4, embedding_dim=4), maxlen=4, length_name="seq_length"),
        VarLenSparseFeat(SparseFeat("hist_cate_id", 3, embedding_dim=4), maxlen=4, length_name="seq_length"),
    ]
    model = DIN(cols, ["item_id", "cate_id"], dnn_hidden_units=(16, 8), att_hidden_size=(8, 4), device="cpu")
    rng = np.random.default_rng(0)
    values = {"user": rng.integers(0, 3, _N), "item_id": rng.integers(1, 4, _N),
              "cate_id": rng.integers(1, 3, _N), "pay_score": rng.random(_N),
              "hist_item_id": rng.integers(0, 4, (_N, 4)), "hist_cate_id": rng.integers(0, 3, (_N, 4)),
              "seq_length": rng.integers(1, 5, _N)}  # fmt: skip
    return model, (_packed(model, values),), {}
