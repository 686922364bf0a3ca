"""torch-rechub: recommender models (CTR ranking, multi-task, matching, generative retrieval).

Users compile the models' forward on a batch of feature dicts: DeepFM over sparse and dense
features, DIN's target attention over a behaviour sequence, the MMoE multi-task model with two
towers, and HSTU's generative sequential recommender over item ids and time gaps.
"""

from __future__ import annotations

import torch
from torch_rechub.basic.features import DenseFeature, SequenceFeature, SparseFeature
from torch_rechub.models.generative.hstu import HSTUModel
from torch_rechub.models.multi_task import MMOE
from torch_rechub.models.ranking import DIN, DeepFM

DISTRIBUTION = "torch-rechub"
PACKAGE = "torch_rechub"
WHY = "recommender systems: CTR ranking, multi-task and generative sequential recommenders"

_B, _VOCAB, _SEQ = 8, 20, 6


def _sparse(names):
    return [SparseFeature(name, vocab_size=_VOCAB, embed_dim=4) for name in names]


def _batch(sparse, dense=(), sequences=()):
    torch.manual_seed(0)
    x = {name: torch.randint(0, _VOCAB, (_B,)) for name in sparse}
    x.update({name: torch.rand(_B) for name in dense})
    x.update({name: torch.randint(0, _VOCAB, (_B, _SEQ)) for name in sequences})
    return x


def call_deepfm():
    torch.manual_seed(0)
    sparse = _sparse(["user", "item", "cate"])
    dense = [DenseFeature("price")]
    model = DeepFM(deep_features=dense + sparse, fm_features=sparse, mlp_params={"dims": [16, 8], "dropout": 0.1})
    return model.eval(), (_batch(["user", "item", "cate"], ["price"]),), {}


def call_din():
    torch.manual_seed(0)
    features = _sparse(["user", "cate"])
    history = [SequenceFeature("hist_item", vocab_size=_VOCAB, embed_dim=4, pooling="concat", shared_with="item")]
    target = [SparseFeature("item", vocab_size=_VOCAB, embed_dim=4)]
    model = DIN(features, history, target, mlp_params={"dims": [16]}, attention_mlp_params={"dims": [8]})
    return model.eval(), (_batch(["user", "cate", "item"], sequences=["hist_item"]),), {}


def call_mmoe():
    torch.manual_seed(0)
    features = [*_sparse(["user", "item", "cate"]), DenseFeature("price")]
    model = MMOE(features, ["classification", "regression"], n_expert=3, expert_params={"dims": [16]},
                 tower_params_list=[{"dims": [8]}, {"dims": [8]}])
    return model.eval(), (_batch(["user", "item", "cate"], ["price"]),), {}


def call_hstu():
    torch.manual_seed(0)
    model = HSTUModel(vocab_size=_VOCAB, d_model=16, n_heads=2, n_layers=2, dqk=8, dv=8, max_seq_len=16,
                      num_time_buckets=16)
    ids = torch.randint(1, _VOCAB, (2, _SEQ))
    return model.eval(), (ids,), {"time_diffs": torch.rand(2, _SEQ) * 3600}
