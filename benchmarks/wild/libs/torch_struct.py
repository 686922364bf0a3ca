"""torch-struct (Harvard NLP): structured prediction distributions (linear-chain and semi-Markov CRFs, CKY).

Users compile the structured output layer of a tagger or parser: a linear-chain CRF's negative
log-likelihood of the gold tags (training) and its Viterbi argmax with marginals (inference), a
semi-Markov CRF's partition and best segmentation, and a span-based tree CRF (CKY) over
constituents. The distributions are built from log-potentials a network scores.
"""

from __future__ import annotations

import torch
import torch_struct

DISTRIBUTION = "torch-struct"
PACKAGE = "torch_struct"
WHY = "NLP / structured prediction: linear-chain, semi-Markov and constituency distributions by semiring DP"

_B, _N, _C = 3, 6, 4


def _chain_potentials() -> tuple[torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    return torch.randn(_B, _N - 1, _C, _C), torch.tensor([6, 5, 4])


def call_linear_chain_nll():
    log_potentials, lengths = _chain_potentials()
    torch.manual_seed(1)
    tags = torch.randint(0, _C, (_B, _N))

    def nll(phi, tags, lengths):  # a CRF tagger's training loss on gold tag sequences
        dist = torch_struct.LinearChainCRF(phi, lengths=lengths)
        gold = torch_struct.LinearChainCRF.struct.to_parts(tags, _C, lengths=lengths).type_as(phi)
        return -dist.log_prob(gold).mean()

    return nll, (log_potentials, tags, lengths), {}


def call_linear_chain_decode():
    log_potentials, lengths = _chain_potentials()

    def decode(phi, lengths):  # inference: the Viterbi structure and the edge marginals
        dist = torch_struct.LinearChainCRF(phi, lengths=lengths)
        return dist.argmax, dist.marginals

    return decode, (log_potentials, lengths), {}


def call_semi_markov_crf():
    torch.manual_seed(2)
    segment_scores = torch.randn(_B, _N - 1, 3, _C, _C)  # segments of up to 3 tokens

    def segment(phi, lengths):  # a neural semi-CRF segmenter: partition and best segmentation
        dist = torch_struct.SemiMarkovCRF(phi, lengths=lengths)
        return dist.partition, dist.argmax

    return segment, (segment_scores, torch.tensor([6, 5, 4])), {}


def call_tree_crf():
    torch.manual_seed(3)
    span_scores = torch.randn(_B, _N, _N, 2)

    def spans(scores, lengths):  # a span-based constituency parser: partition and span marginals
        dist = torch_struct.TreeCRF(scores, lengths=lengths)
        return dist.partition, dist.marginals

    return spans, (span_scores, torch.tensor([6, 5, 6])), {}
