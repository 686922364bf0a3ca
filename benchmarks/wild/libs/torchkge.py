"""torchkge: knowledge-graph embedding models (TransE/H/R/D, DistMult, ComplEx, RESCAL, ConvKB).

Users compile the training step of the library's own loop (`torchkge.utils.Trainer`): negative
sampling of corrupted triples, the model's forward (scores of true and corrupted triples) and a
margin or logistic loss; and the link-prediction scoring that `LinkPredictionEvaluator` runs on
every test batch (`inference_prepare_candidates` then `inference_scoring_function`).
"""

from __future__ import annotations

import pandas as pd
import torch
from torchkge import KnowledgeGraph
from torchkge.models import ComplExModel, ConvKBModel, TransDModel, TransEModel, TransHModel
from torchkge.sampling import BernoulliNegativeSampler, UniformNegativeSampler
from torchkge.utils import LogisticLoss, MarginLoss

DISTRIBUTION = "torchkge"
PACKAGE = "torchkge"
WHY = "graphs: knowledge-graph embeddings (translational, bilinear, convolutional), negative sampling"

N_ENT, N_REL = 20, 4


def _kg() -> KnowledgeGraph:
    torch.manual_seed(0)
    heads = torch.randint(0, N_ENT, (60,))
    tails = torch.randint(0, N_ENT, (60,))
    rels = torch.randint(0, N_REL, (60,))
    df = pd.DataFrame(
        {
            "from": [f"e{i}" for i in heads.tolist()],
            "to": [f"e{i}" for i in tails.tolist()],
            "rel": [f"r{i}" for i in rels.tolist()],
        }
    )
    ent2ix = {f"e{i}": i for i in range(N_ENT)}
    rel2ix = {f"r{i}": i for i in range(N_REL)}
    return KnowledgeGraph(df=df, ent2ix=ent2ix, rel2ix=rel2ix)


def _batch(kg: KnowledgeGraph, size: int = 16):
    return kg.head_idx[:size], kg.tail_idx[:size], kg.relations[:size]


def call_transe_margin_step():
    # The README's TransE training step: uniform negative sampling, forward, margin loss.
    kg = _kg()
    torch.manual_seed(0)
    model = TransEModel(16, kg.n_ent, kg.n_rel, dissimilarity_type="L2")
    criterion = MarginLoss(margin=0.5)
    sampler = UniformNegativeSampler(kg)

    def step(h, t, r):
        n_h, n_t = sampler.corrupt_batch(h, t, r)
        pos, neg = model(h, t, r, n_h, n_t)
        return criterion(pos, neg)

    return step, _batch(kg), {}


def call_transh_bernoulli_step():
    # TransH with Bernoulli negative sampling (the TransH paper's scheme), several negatives each.
    kg = _kg()
    torch.manual_seed(0)
    model = TransHModel(16, kg.n_ent, kg.n_rel)
    criterion = MarginLoss(margin=1.0)
    sampler = BernoulliNegativeSampler(kg, n_neg=2)

    def step(h, t, r):
        n_h, n_t = sampler.corrupt_batch(h, t, r)
        pos, neg = model(h, t, r, n_h, n_t)
        return criterion(pos, neg)

    return step, _batch(kg), {}


def call_complex_logistic_loss():
    kg = _kg()
    torch.manual_seed(0)
    model = ComplExModel(16, kg.n_ent, kg.n_rel)
    criterion = LogisticLoss()
    h, t, r = _batch(kg)
    n_h, n_t = torch.randint(0, N_ENT, (16,)), torch.randint(0, N_ENT, (16,))

    def loss(h, t, r, n_h, n_t):
        pos, neg = model(h, t, r, n_h, n_t)
        return criterion(pos, neg)

    return loss, (h, t, r, n_h, n_t), {}


def call_convkb_forward():
    kg = _kg()
    torch.manual_seed(0)
    model = ConvKBModel(16, 4, kg.n_ent, kg.n_rel)
    h, t, r = _batch(kg)
    n_h, n_t = torch.randint(0, N_ENT, (16,)), torch.randint(0, N_ENT, (16,))
    return model, (h, t, r, n_h, n_t), {}


def call_transd_link_prediction_scores():
    # LinkPredictionEvaluator's per-batch work: embed the batch and score every candidate tail.
    kg = _kg()
    torch.manual_seed(0)
    model = TransDModel(16, 8, kg.n_ent, kg.n_rel)

    def score_tails(h, t, r):
        h_emb, _t_emb, r_emb, candidates = model.inference_prepare_candidates(h, t, r, entities=True)
        return model.inference_scoring_function(h_emb, candidates, r_emb)

    return score_tails, _batch(kg), {}
