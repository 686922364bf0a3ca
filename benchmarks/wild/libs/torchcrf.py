"""pytorch-crf: a linear-chain conditional random field layer for sequence labelling (NER, POS).

Users compile the tagger's training loss (the CRF's forward: the log-likelihood of the gold tags)
and its inference (`decode`, Viterbi over the emission scores).
"""

from __future__ import annotations

import torch
from torchcrf import CRF

DISTRIBUTION = "pytorch-crf"
PACKAGE = "torchcrf"
WHY = "NLP: CRF output layer of sequence taggers (log-likelihood loss and Viterbi decoding)"

_TAGS = 5


def _batch() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Emissions, gold tags and a padding mask for 3 sentences of up to 6 tokens."""
    torch.manual_seed(0)
    emissions = torch.randn(3, 6, _TAGS, requires_grad=True)
    tags = torch.randint(0, _TAGS, (3, 6))
    mask = torch.tensor([[1] * 6, [1] * 4 + [0] * 2, [1] * 5 + [0]], dtype=torch.bool)
    return emissions, tags, mask


def _crf() -> CRF:
    torch.manual_seed(0)
    return CRF(_TAGS, batch_first=True)


def call_log_likelihood():
    emissions, tags, mask = _batch()
    return _crf(), (emissions, tags), {"mask": mask, "reduction": "mean"}


def call_decode():
    emissions, _tags, mask = _batch()
    return _crf().decode, (emissions.detach(),), {"mask": mask}
